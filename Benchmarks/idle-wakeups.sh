#!/bin/sh
# How often an idle daemon wakes, and what its idle costs in CPU, measured from outside for
# several builds of alarmd side by side in one run, on one board profile:
#
#   Benchmarks/idle-wakeups.sh [-s SECONDS] [-b BOARD] LABEL=ALARMD,ALARMCTL ...
#
#   Benchmarks/idle-wakeups.sh -s 300 -b board/rpi4b.toml \
#       before=/work/base/.build/release/alarmd,/work/base/.build/release/alarmctl \
#       after=.build/release/alarmd,.build/release/alarmctl
#
# Starts every ALARMD at once with --config /dev/null and a fresh state directory on BOARD
# (default ./board/simulated.toml; a Pi profile on a machine without its GPIO chip, I2C bus and
# sound card is the "missing parts" case), sets the same three alarms hours ahead with its
# ALARMCTL, lets them settle for 10 s, then counts for SECONDS (default 300) at the same time:
# the context switches of every thread (`perf stat -e context-switches -p PID`), also split into
# voluntary ones (wake-ups) and involuntary ones (preemptions, which a busy host adds) from
# /proc/PID/task/*/status, and the CPU time (`perf stat -e task-clock`, to the microsecond; the
# seconds from /proc/PID/stat's utime + stime, in clock ticks, beside it). Prints one line per
# build. Needs perf.
set -eu
seconds=300
board=$(dirname "$0")/../board/simulated.toml
while getopts s:b: option; do
    case $option in
    s) seconds=$OPTARG ;;
    b) board=$OPTARG ;;
    *) exit 64 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-s SECONDS] [-b BOARD] LABEL=ALARMD,ALARMCTL ..." >&2; exit 64; }
work=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$work"' EXIT
hz=$(getconf CLK_TCK)

cputicks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

index=0
for build in "$@"; do
    index=$((index + 1))
    label=${build%%=*}
    binaries=${build#*=}
    alarmd=${binaries%%,*}
    alarmctl=${binaries#*,}
    dir=$work/$index
    mkdir -p "$dir"
    "$alarmd" run --board "$board" --config /dev/null --socket "$dir/control.sock" --state-dir "$dir/state" \
        --log-level warning 2>"$dir/alarmd.log" &
    pid=$!
    pids="$pids $pid"
    echo "$label $pid $alarmctl" >"$dir/build"
done

for dir in "$work"/*/; do
    read -r label pid alarmctl <"$dir/build"
    tries=0
    until [ -S "$dir/control.sock" ] && "$alarmctl" --socket "$dir/control.sock" list >/dev/null 2>&1; do
        tries=$((tries + 1))
        [ $tries -lt 600 ] && kill -0 "$pid" 2>/dev/null || { echo "$label did not start:" >&2; cat "$dir/alarmd.log" >&2; exit 1; }
        sleep 0.1
    done
    for hours in 3 5 7; do
        at=$(date -d "+$hours hours" +%H:%M)
        "$alarmctl" --socket "$dir/control.sock" schedule --at "$at" --title "In $hours hours" >/dev/null
    done
done
sleep 10
# Every thread's voluntary context switches (it went to sleep: one wake-up later) and involuntary
# ones (it was preempted while running, which a busy host adds), from /proc.
switches() { cat /proc/"$1"/task/*/status | awk '/^voluntary_ctxt/ { v += $2 } /^nonvoluntary_ctxt/ { n += $2 } END { print v, n }'; }

perfs=""
for dir in "$work"/*/; do
    read -r label pid alarmctl <"$dir/build"
    cputicks "$pid" >"$dir/cpu.start"
    switches "$pid" >"$dir/switches.start"
    perf stat -x, -e context-switches,task-clock -p "$pid" -o "$dir/perf.csv" -- sleep "$seconds" &
    perfs="$perfs $!"
done
for p in $perfs; do wait "$p"; done

printf '%-10s %-8s %8s %10s %9s %11s %8s %12s %s\n' \
    build board switches per-minute voluntary involuntary threads cpu-percent cpu-seconds
for dir in "$work"/*/; do
    read -r label pid alarmctl <"$dir/build"
    ticks=$(( $(cputicks "$pid") - $(cat "$dir/cpu.start") ))
    switches=$(awk -F, '/context-switches/ { print $1 }' "$dir/perf.csv")
    milliseconds=$(awk -F, '/task-clock/ { print $1 }' "$dir/perf.csv")
    threads=$(ls "/proc/$pid/task" | wc -l)
    read -r voluntary involuntary <"$dir/switches.start"
    switches "$pid" >"$dir/switches.end"
    read -r voluntary_end involuntary_end <"$dir/switches.end"
    awk -v l="$label" -v b="$(basename "$board" .toml)" -v s="$switches" -v t="$threads" -v k="$ticks" -v hz="$hz" \
        -v d="$seconds" -v v=$((voluntary_end - voluntary)) -v n=$((involuntary_end - involuntary)) -v ms="$milliseconds" \
        'BEGIN { printf "%-10s %-8s %8d %10.1f %9d %11d %8d %12.4f %.2f\n", l, b, s, s * 60 / d, v, n, t, ms / 10 / d, k / hz }'
done
