#!/bin/sh
# How often an idle alarm-web (and the alarmd it talks to) wakes, measured from outside for
# several builds side by side in one run:
#
#   Benchmarks/web-idle.sh [-s SECONDS] LABEL=BUILD_DIR ...
#
#   Benchmarks/web-idle.sh -s 300 before=/work/before/.build-rel/release after=.build-rel/release
#
# BUILD_DIR holds alarmd, alarmctl and alarm-web (`deploy/swift-build-release --product ...`, the
# packages' build). For each build: alarmd headless on board/simulated.toml with one weekday
# alarm, alarm-web on a free port with a paired browser written into its state directory; the
# page is used as a phone would (the page's files, the state, the event stream for 3 s, an alarm
# switched off and on), then left alone for 70 s (each request's 60 s timeout runs out), then
# both processes' context switches and CPU time are counted for SECONDS (default 300) with
# `perf stat -e context-switches,task-clock -p PID`, every build at once. Needs perf and curl.
set -eu
seconds=300
while getopts s: option; do
    case $option in
    s) seconds=$OPTARG ;;
    *) exit 64 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-s SECONDS] LABEL=BUILD_DIR ..." >&2; exit 64; }
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$work"' EXIT
token=$(printf 'b%.0s' $(seq 64))
export MALLOC_ARENA_MAX=1

index=0
for build in "$@"; do
    index=$((index + 1))
    label=${build%%=*}
    bin=${build#*=}
    dir=$work/$index
    mkdir -p "$dir/web"
    chmod 700 "$dir/web"
    printf '[{"id":"bench","name":"benchmark","token":"%s","created":"2026-01-01T00:00:00Z","lastSeen":"2026-01-01T00:00:00Z"}]\n' \
        "$token" >"$dir/web/pairings.json"
    "$bin/alarmd" run --board "$repo/board/simulated.toml" --config /dev/null --socket "$dir/control.sock" \
        --state-dir "$dir/state" --log-level warning 2>"$dir/alarmd.log" &
    daemon=$!
    pids="$pids $daemon"
    tries=0
    until [ -S "$dir/control.sock" ] && "$bin/alarmctl" --socket "$dir/control.sock" list >/dev/null 2>&1; do
        tries=$((tries + 1))
        [ $tries -lt 600 ] || { echo "$label: alarmd did not start" >&2; cat "$dir/alarmd.log" >&2; exit 1; }
        sleep 0.1
    done
    "$bin/alarmctl" --socket "$dir/control.sock" schedule --at 07:30 --repeat weekdays --title "Wake up" >/dev/null
    port=$((18080 + index))
    "$bin/alarm-web" --listen "127.0.0.1:$port" --socket "$dir/control.sock" --state-dir "$dir/web" \
        --files "$repo/web" --log-level warning 2>"$dir/web.log" &
    web=$!
    pids="$pids $web"
    echo "$label $daemon $web $port" >"$dir/build"
done

for dir in "$work"/*/; do
    read -r label daemon web port <"$dir/build"
    url=http://127.0.0.1:$port
    tries=0
    until curl -sf -o /dev/null "$url/"; do
        tries=$((tries + 1))
        [ $tries -lt 600 ] || { echo "$label: alarm-web did not start" >&2; cat "$dir/web.log" >&2; exit 1; }
        sleep 0.1
    done
    cookie="Cookie: alarm_session=$token"
    for file in / /app.js /app.css /icon.svg; do curl -sf -o /dev/null "$url$file"; done
    curl -sf -o "$dir/state.json" -H "$cookie" "$url/api/state"
    curl -s -o /dev/null -m 3 -H "$cookie" "$url/api/events" || true
    id=$(sed -n 's/.*"alarms":\[{[^}]*"id":"\([^"]*\)".*/\1/p' "$dir/state.json")
    for action in disable enable; do
        curl -sf -o /dev/null -X POST -H "$cookie" -H "Origin: $url" -H 'Content-Type: application/json' \
            -d '{}' "$url/api/alarms/$id/$action" || echo "$label: $action of '$id' failed" >&2
    done
done
sleep 70

perfs=""
for dir in "$work"/*/; do
    read -r label daemon web port <"$dir/build"
    perf stat -x, -e context-switches,task-clock -p "$daemon" -o "$dir/alarmd.csv" -- sleep "$seconds" &
    perfs="$perfs $!"
    perf stat -x, -e context-switches,task-clock -p "$web" -o "$dir/web.csv" -- sleep "$seconds" &
    perfs="$perfs $!"
done
for p in $perfs; do wait "$p"; done

printf '%-10s %-10s %8s %10s %12s %8s %9s\n' build process switches per-minute cpu-percent threads rss-MiB
for dir in "$work"/*/; do
    read -r label daemon web port <"$dir/build"
    for process in alarmd web; do
        if [ $process = web ]; then pid=$web; name=alarm-web; else pid=$daemon; name=alarmd; fi
        switches=$(awk -F, '/context-switches/ { print $1 }' "$dir/$process.csv")
        milliseconds=$(awk -F, '/task-clock/ { print $1 }' "$dir/$process.csv")
        threads=$(ls "/proc/$pid/task" | wc -l)
        rss=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status")
        awk -v l="$label" -v n="$name" -v s="$switches" -v t="$threads" -v r="$rss" -v d="$seconds" -v ms="$milliseconds" \
            'BEGIN { printf "%-10s %-10s %8d %10.1f %12.4f %8d %9.1f\n", l, n, s, s * 60 / d, ms / 10 / d, t, r / 1024 }'
    done
done
