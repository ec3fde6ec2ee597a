#!/bin/bash
# Adding a household sound (`alarmctl sounds add`, the path the phone page's upload takes too):
# how long a 60-minute MP3 takes to reach alarmd and be checked, and what it costs alarmd in
# memory and CPU, measured from outside, for several builds side by side:
#
#   Benchmarks/upload-sound.sh [-m MINUTES] LABEL=ALARMD,ALARMCTL ...
#
# Uses the MP3 Benchmarks/ringing-rss.sh makes and caches (MINUTES, default 60: about 82 MiB at
# 192 kbit/s; made here the same way if missing, with lame). For each build: starts alarmd on the
# simulated board with a fresh state directory, notes VmRSS idle, runs `alarmctl sounds add`
# while sampling alarmd's VmRSS every 0.1 s, then prints the wall time, the rate, alarmd's idle
# and peak RSS (and VmHWM) and its CPU over the upload (utime + stime from /proc/PID/stat).
set -eu
minutes=60
while getopts m: option; do
    case $option in
    m) minutes=$OPTARG ;;
    *) exit 64 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $0 [-m MINUTES] LABEL=ALARMD,ALARMCTL ..." >&2; exit 64; }
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/alarmd/bench
sound=$cache/sounds/long-$minutes.mp3
if [ ! -s "$sound" ]; then
    # ringing-rss.sh makes the file before it measures anything; one second of ringing suffices.
    first=$1
    "$repo/Benchmarks/ringing-rss.sh" -s 1 -m "$minutes" "$first" >/dev/null
fi
bytes=$(stat -c %s "$sound")
tick=$(getconf CLK_TCK)
for build in "$@"; do
    label=${build%%=*}
    binaries=${build#*=}
    alarmd=${binaries%%,*}
    alarmctl=${binaries#*,}
    work=$(mktemp -d)
    socket=$work/control.sock
    : >"$work/alarmd.toml"
    MALLOC_ARENA_MAX=1 "$alarmd" run --board "$repo/board/simulated.toml" --config "$work/alarmd.toml" --socket "$socket" \
        --state-dir "$work/state" --log-level warning 2>"$work/alarmd.log" &
    pid=$!
    tries=0
    until [ -S "$socket" ] && "$alarmctl" --socket "$socket" list >/dev/null 2>&1; do
        tries=$((tries + 1))
        [ $tries -lt 600 ] && kill -0 "$pid" 2>/dev/null || { echo "$label: alarmd did not start:" >&2; cat "$work/alarmd.log" >&2; exit 1; }
        sleep 0.1
    done
    sleep 2
    idle=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
    read -r -a stat <"/proc/$pid/stat"
    cpu_before=$((stat[13] + stat[14]))
    start=$(date +%s%N)
    "$alarmctl" --socket "$socket" sounds add "$sound" --name "Long.mp3" >"$work/add.txt" 2>&1 &
    add=$!
    peak=$idle
    while kill -0 "$add" 2>/dev/null; do
        rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
        ((rss > peak)) && peak=$rss
        sleep 0.1
    done
    wait "$add" || { echo "$label: sounds add failed: $(cat "$work/add.txt")" >&2; exit 1; }
    elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
    read -r -a stat <"/proc/$pid/stat"
    cpu=$((stat[13] + stat[14] - cpu_before))
    hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
    cmp -s "$sound" "$work/state/sounds/Long.mp3" || { echo "$label: the kept file differs from the one sent" >&2; exit 1; }
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    awk -v l="$label" -v b="$bytes" -v e="$elapsed" -v i="$idle" -v p="$peak" -v h="$hwm" -v c="$cpu" -v t="$tick" 'BEGIN {
        printf "%s: %.1f MiB added in %.2f s (%.1f MiB/s); alarmd idle %.1f MiB, peak %.1f MiB (VmHWM %.1f MiB); CPU %.2f s\n",
            l, b / 1048576, e / 1000, b / 1048576 / (e / 1000), i / 1024, p / 1024, h / 1024, c / t }'
    rm -rf "$work"
done
