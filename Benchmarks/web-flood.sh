#!/bin/sh
# alarm-web under a flood from the LAN, measured from outside: a paired phone's answers (GET
# /api/state on a new connection every 100 ms) and alarm-web's memory and CPU, first quiet, then
# while alarm-web-flood holds 2,000 idle connections (opening another for each one closed),
# sends 1 MiB headers on 4 connections and 512 MiB bodies on 2 (streamed, never held), and 100
# requests a byte a second, from another address and then from the phone's own; then how long
# SIGTERM takes during that flood.
#
#   Benchmarks/web-flood.sh [-s SECONDS] BUILD_DIR
#
#   swift build -c release --product alarmd --product alarmctl --product alarm-web --product alarm-web-flood
#   Benchmarks/web-flood.sh -s 30 "$(swift build -c release --show-bin-path)"
#
# BUILD_DIR holds alarmd, alarmctl, alarm-web and alarm-web-flood. alarmd runs headless on
# board/simulated.toml with one weekday alarm; alarm-web runs on a free loopback port with a
# paired browser written into its state directory and the unit's file limit (ulimit -n 1024).
# Traffic goes to 127.0.0.1 only, and every part stops by itself.
set -eu
seconds=30
while getopts s: option; do
    case $option in
    s) seconds=$OPTARG ;;
    *) exit 64 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: $0 [-s SECONDS] BUILD_DIR" >&2; exit 64; }
bin=$1
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$work"' EXIT
token=$(printf 'f%.0s' $(seq 64))
export MALLOC_ARENA_MAX=1

mkdir -p "$work/web"
chmod 700 "$work/web"
printf '[{"id":"bench","name":"benchmark","token":"%s","created":"2026-01-01T00:00:00Z","lastSeen":"2026-01-01T00:00:00Z"}]\n' \
    "$token" >"$work/web/pairings.json"
"$bin/alarmd" run --board "$repo/board/simulated.toml" --config /dev/null --socket "$work/control.sock" \
    --state-dir "$work/state" --log-level warning 2>"$work/alarmd.log" &
pids="$pids $!"
tries=0
until [ -S "$work/control.sock" ] && "$bin/alarmctl" --socket "$work/control.sock" list >/dev/null 2>&1; do
    tries=$((tries + 1))
    [ $tries -lt 600 ] || { echo "alarmd did not start" >&2; cat "$work/alarmd.log" >&2; exit 1; }
    sleep 0.1
done
"$bin/alarmctl" --socket "$work/control.sock" schedule --at 07:30 --repeat weekdays --title "Wake up" >/dev/null

# The unit's LimitNOFILE=1024; the port alarm-web chose is in its first line.
(ulimit -n 1024 && exec "$bin/alarm-web" --listen 127.0.0.1:0 --socket "$work/control.sock" --state-dir "$work/web" \
    --files "$repo/web" --log-level notice) 2>"$work/web.log" &
web=$!
pids="$pids $web"
tries=0
until port=$(sed -n "s/.*Serving the clock's page.* port=\([0-9]*\).*/\1/p" "$work/web.log") && [ -n "$port" ]; do
    tries=$((tries + 1))
    [ $tries -lt 600 ] || { echo "alarm-web did not start" >&2; cat "$work/web.log" >&2; exit 1; }
    sleep 0.1
done

cpu() {  # alarm-web's user + system CPU time so far, in clock ticks
    awk '{ print $14 + $15 }' "/proc/$web/stat"
}
ticks=$(getconf CLK_TCK)

echo "alarm-web $(readlink -f "$bin/alarm-web"), port $port, ${seconds} s each; $(nproc) CPUs: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
echo "idle RSS: $(sed -n 's/^VmRSS: *//p' "/proc/$web/status")"
before=$(cpu)
echo "quiet: $("$bin/alarm-web-flood" --port "$port" --idle 0 --huge-headers 0 --huge-bodies 0 --slow 0 \
    --seconds "$seconds" --cookie "$token" --pid "$web")"
echo "  alarm-web CPU: $(awk -v t="$(($(cpu) - before))" -v hz="$ticks" 'BEGIN { printf "%.2f s", t / hz }')"
# The flood from another host (127.0.0.2), as on a home network, then from the phone's own
# address (127.0.0.1: a phone behind the same proxy or NAT as the attacker, the worst case).
for from in 127.0.0.2 127.0.0.1; do
    before=$(cpu)
    echo "flood from $from: $("$bin/alarm-web-flood" --port "$port" --flood-from "$from" --seconds "$seconds" --cookie "$token" --pid "$web")"
    echo "  alarm-web CPU: $(awk -v t="$(($(cpu) - before))" -v hz="$ticks" 'BEGIN { printf "%.2f s", t / hz }')"
done

# SIGTERM in the middle of the same flood: the time until the process is gone.
"$bin/alarm-web-flood" --port "$port" --flood-from 127.0.0.2 --seconds 20 >/dev/null &
flood=$!
pids="$pids $flood"
sleep 5
start=$(date +%s%N)
kill -TERM "$web"
waited=0
while [ -d "/proc/$web" ] && ! grep -q '^State:.*Z' "/proc/$web/status" 2>/dev/null && [ $waited -lt 1000 ]; do
    sleep 0.01
    waited=$((waited + 1))
done
if [ $waited -ge 1000 ]; then
    echo "SIGTERM during the flood: still running after 10 s (killed)"
    kill -KILL "$web"
else
    wait "$web" 2>/dev/null && status=0 || status=$?
    echo "SIGTERM during the flood: gone after $((($(date +%s%N) - start) / 1000000)) ms, exit status $status"
fi
kill "$flood" 2>/dev/null || true
