#!/bin/bash
# The daemon's memory and CPU while it rings a long sound file, measured from outside, for
# several builds side by side (one after the other, the same file):
#
#   Benchmarks/ringing-rss.sh [-s SECONDS] [-m MINUTES] LABEL=ALARMD,ALARMCTL ...
#
# Makes (once, cached in $XDG_CACHE_HOME/alarmd/bench) an MP3 of MINUTES (default 60) of a
# 440 Hz tone under noise, 48 kHz stereo at 192 kbit/s (`lame`; about 82 MiB for an hour), and a
# board profile like the QEMU board's with ALSA's `null` device as its sound (a real playback
# through alsa-lib, paced to real time, with no card). For each build: starts alarmd with that
# board, the MP3's directory as its sounds directory and a fresh state directory, notes VmRSS
# idle, schedules an alarm 3 s ahead with --sound, and while it rings for SECONDS (default 60)
# samples VmRSS every second; then prints the idle RSS, the median and peak RSS while ringing
# (and VmHWM), and the CPU over the ringing (utime + stime from /proc/PID/stat). Needs lame.
set -eu
seconds=60
minutes=60
while getopts s:m: option; do
    case $option in
    s) seconds=$OPTARG ;;
    m) minutes=$OPTARG ;;
    *) exit 64 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $0 [-s SECONDS] [-m MINUTES] LABEL=ALARMD,ALARMCTL ..." >&2; exit 64; }
command -v lame >/dev/null || { echo "$0: needs lame (apt-get install lame)" >&2; exit 69; }
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/alarmd/bench
mkdir -p "$cache/sounds"
sound=long-$minutes.mp3
if [ ! -s "$cache/sounds/$sound" ]; then
    echo "making a $minutes-minute MP3 (lame)..." >&2
    # Ten seconds of raw 16-bit stereo, repeated: the encoder sees a full hour.
    python3 -c '
import math, random, struct, sys
rate = 48000
random.seed(1)
frames = bytearray()
for i in range(10 * rate):
    v = int(8000 * math.sin(2 * math.pi * 440 * i / rate)) + random.randint(-2000, 2000)
    frames += struct.pack("<hh", v, v)
sys.stdout.buffer.write(frames)
' >"$cache/block.raw"
    for ((i = 0; i < minutes * 6; i++)); do cat "$cache/block.raw"; done |
        lame --quiet -r -s 48 --bitwidth 16 --signed --little-endian -m j -b 192 - "$cache/sounds/$sound.part"
    rm -f "$cache/block.raw"
    mv "$cache/sounds/$sound.part" "$cache/sounds/$sound"
fi
tick=$(getconf CLK_TCK)
for build in "$@"; do
    label=${build%%=*}
    binaries=${build#*=}
    alarmd=${binaries%%,*}
    alarmctl=${binaries#*,}
    work=$(mktemp -d)
    sed 's/^device = .*/device = "null"/' "$repo/board/qemu.toml" >"$work/board.toml"
    printf '[sound]\nsounds_directory = "%s"\ncrescendo = "0"\n' "$cache/sounds" >"$work/alarmd.toml"
    socket=$work/control.sock
    MALLOC_ARENA_MAX=1 "$alarmd" run --board "$work/board.toml" --config "$work/alarmd.toml" --socket "$socket" \
        --state-dir "$work/state" --log-level warning 2>"$work/alarmd.log" &
    pid=$!
    tries=0
    until [ -S "$socket" ] && "$alarmctl" --socket "$socket" list >/dev/null 2>&1; do
        tries=$((tries + 1))
        [ $tries -lt 600 ] && kill -0 "$pid" 2>/dev/null || { echo "$label: alarmd did not start:" >&2; cat "$work/alarmd.log" >&2; exit 1; }
        sleep 0.1
    done
    sleep 5
    idle=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
    due=$(date -u -d '+3 seconds' +%Y-%m-%dT%H:%M:%SZ)
    "$alarmctl" --socket "$socket" schedule --on "$due" --title Long --sound "$sound" >/dev/null
    until "$alarmctl" --socket "$socket" list --json | grep -q '"alerting"'; do sleep 0.1; done
    read -r -a stat <"/proc/$pid/stat"
    cpu_before=$((stat[13] + stat[14]))
    samples=()
    for ((i = 0; i < seconds; i++)); do
        sleep 1
        samples+=("$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")")
    done
    read -r -a stat <"/proc/$pid/stat"
    cpu=$((stat[13] + stat[14] - cpu_before))
    hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
    grep -q "Alarm sound could not play" "$work/alarmd.log" && { echo "$label: the sound did not play:" >&2; cat "$work/alarmd.log" >&2; }
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    sorted=$(printf '%s\n' "${samples[@]}" | sort -n)
    median=$(echo "$sorted" | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
    peak=$(echo "$sorted" | tail -n 1)
    awk -v l="$label" -v i="$idle" -v m="$median" -v p="$peak" -v h="$hwm" -v c="$cpu" -v t="$tick" -v s="$seconds" -v f="$sound" 'BEGIN {
        printf "%s: %s, %d s ringing: idle %.1f MiB; ringing median %.1f MiB, peak %.1f MiB (VmHWM %.1f MiB); CPU %.2f s (%.2f %% of a core)\n",
            l, f, s, i / 1024, m / 1024, p / 1024, h / 1024, c / t, 100 * c / t / s }'
    rm -rf "$work"
done
