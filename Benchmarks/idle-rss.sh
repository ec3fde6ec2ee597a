#!/bin/sh
# The idle daemon's resident memory, measured from outside, for any build of alarmd (a package's
# stripped binary, natively or inside the arm64 guest):
#
#   Benchmarks/idle-rss.sh [--ring] [ALARMD [ALARMCTL [BOARD]]]    (default: the installed ones)
#
# Starts ALARMD headless on BOARD (default the installed simulated.toml, else
# ./board/simulated.toml; a Pi profile such as board/rpi4b.toml on a machine without its parts
# runs with them missing, as on a Pi whose wiring is not there yet) with a fresh state directory,
# schedules 100 alarms with ALARMCTL (none due for a year), lists them; with --ring, lets a 2 s
# timer ring and stops it; then leaves it idle for 10 s, prints VmRSS and the smaps_rollup
# breakdown of the whole process, and stops it. Needs only sh and /proc.
set -eu
ring=0
if [ "${1:-}" = --ring ]; then ring=1; shift; fi
alarmd=${1:-/usr/bin/alarmd}
alarmctl=${2:-/usr/bin/alarmctl}
board=${3:-/usr/share/alarmd/boards/simulated.toml}
[ -f "$board" ] || board=$(dirname "$0")/../board/simulated.toml
work=$(mktemp -d)
socket=$work/control.sock
# The unit's environment (deploy/alarmd.service).
MALLOC_ARENA_MAX=1 "$alarmd" run --board "$board" --config /dev/null --socket "$socket" --state-dir "$work/state" \
    --log-level warning 2>"$work/alarmd.log" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$work"' EXIT
tries=0
until [ -S "$socket" ] && "$alarmctl" --socket "$socket" list >/dev/null 2>&1; do
    tries=$((tries + 1))
    [ $tries -lt 600 ] && kill -0 "$pid" 2>/dev/null || { echo "alarmd did not start:" >&2; cat "$work/alarmd.log" >&2; exit 1; }
    sleep 0.1
done
year=$(( $(date -u +%Y) + 1 ))
index=0
while [ $index -lt 100 ]; do
    minute=$(printf '%02d' $((index % 60)))
    "$alarmctl" --socket "$socket" schedule --on "${year}-06-01T07:${minute}:00Z" --title "Alarm $index" >/dev/null
    index=$((index + 1))
done
[ "$("$alarmctl" --socket "$socket" list | grep -c .)" -ge 100 ] || { echo "the list lacks alarms" >&2; exit 1; }
if [ $ring = 1 ]; then
    id=$("$alarmctl" --socket "$socket" timer 2s --json | grep -o '"id" *: *"[^"]*"' | head -n 1 | sed 's/.*"\([^"]*\)"$/\1/')
    tries=0
    until "$alarmctl" --socket "$socket" show "$id" --json | grep -q '"alerting"'; do
        tries=$((tries + 1))
        [ $tries -lt 100 ] || { echo "the timer did not ring" >&2; exit 1; }
        sleep 0.1
    done
    "$alarmctl" --socket "$socket" stop "$id" >/dev/null
fi
sleep 10
echo "$(uname -m) $alarmd$([ $ring = 1 ] && echo ', after a ring'): VmRSS $(awk '/^VmRSS:/ { print $2, $3 }' /proc/$pid/status)"
grep -E '^(Rss|Pss_Anon|Pss_File|Private_Clean|Shared_Clean|Private_Dirty|Anonymous):' /proc/$pid/smaps_rollup |
    tr -s ' ' | tr '\n' ';' | sed 's/;$/\n/'
