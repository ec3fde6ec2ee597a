#!/bin/sh
# The daemon's day in a few minutes, on the simulated board (board/simulated.toml: the real
# appliance, engine, store and control socket; fakes for the buttons, LED, LCD and speaker):
#
#   deploy/link/daemon-workload.sh [--benchmark] --alarmctl ALARMCTL --dir DIR [--at-phase COMMAND] \
#       -- ALARMD_COMMAND...
#
# ALARMD_COMMAND is the daemon (make-order.sh: valgrind ... alarmd); the workload adds its
# arguments. It runs as a systemd service would (NOTIFY_SOCKET with a listener, WATCHDOG_USEC,
# log level info on stderr, into DIR/alarmd.log), in DIR (state, sockets, logs; emptied first),
# through five phases:
#
#   start     to READY=1, with no alarms stored
#   requests  alarmctl: 100 weekly alarms scheduled (on a day after tomorrow: none rings here);
#             an AlarmKit client's requests (alarms, authorizationState: the benchmark's); alarmctl:
#             lists (text and JSON), show, status, history, auth status, a cancel
#   idle      until a minute boundary has passed (the display's clock) and the watchdog pinged
#   alert     an alarm 10 s ahead rings (sound, LED, display), SNOOZE (alarmctl snooze), rings
#             again after its 5 s snooze, STOP (alarmctl stop); a 4 s timer rings and is stopped
#   stop      SIGTERM, graceful shutdown
#   restart   started again on the same state (as at every boot: the alarms read back), a list,
#             5 s idle, SIGTERM
#
# --benchmark runs the daemon as `alarm-benchmarks --only daemon` measures its idle RSS (log
# level warning, no watchdog) and only asks what it asks (100 schedules, lists, the
# authorization state) and alarmctl list; its idle is 5 s and it has no alert phase.
#
# After each phase but stop, `COMMAND PHASE PID` runs while the daemon waits (make-order.sh
# dumps callgrind's counters there; a measurement can read /proc/PID/smaps_rollup). Needs
# python3 (the notification socket's listener). Exit status 0 when every step worked.
set -eu

usage() {
    sed -n '4p' "$0" | sed 's/^# *//' >&2
    exit 64
}
alarmctl= dir= hook= benchmark=no
while [ $# -gt 0 ]; do
    case "$1" in
        --benchmark) benchmark=yes; shift ;;
        --alarmctl) alarmctl=${2:?}; shift 2 ;;
        --dir) dir=${2:?}; shift 2 ;;
        --at-phase) hook=${2:?}; shift 2 ;;
        --) shift; break ;;
        *) usage ;;
    esac
done
[ -n "$alarmctl" ] && [ -n "$dir" ] && [ $# -gt 0 ] || usage
command -v python3 >/dev/null 2>&1 || { echo "daemon-workload.sh: python3 is missing" >&2; exit 69; }

source_dir=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
rm -rf "$dir/state" "$dir/control.sock" "$dir/notify.sock" "$dir/notify.log" "$dir/alarmd.log"
socket=$dir/control.sock
[ ${#socket} -le 100 ] || { echo "daemon-workload.sh: $dir is too long a path for a socket" >&2; exit 64; }

fail() {
    echo "daemon-workload.sh: $*" >&2
    [ -f "$dir/alarmd.log" ] && tail -n 20 "$dir/alarmd.log" >&2
    exit 1
}
ctl() {  # ctl ARGUMENTS...: alarmctl on the workload's socket, output discarded
    "$alarmctl" "$@" --socket "$socket" >/dev/null || fail "alarmctl $* failed"
}

# The configuration a device has, but with groups this machine has (the caller's).
group=$(id -gn)
printf 'socket_group = "%s"\nadmin_group = "%s"\nlog_level = "info"\n' "$group" "$group" >"$dir/alarmd.toml"
watchdog=10000000
if [ "$benchmark" = yes ]; then
    : >"$dir/alarmd.toml"
    set -- "$@" --log-level warning
    watchdog=
fi

# systemd's side of NOTIFY_SOCKET: every datagram appended to notify.log, one a line.
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a") as log:
    while True:
        data = s.recv(4096)
        log.write(data.decode(errors="replace").replace("\n", " ") + "\n")
        log.flush()
' "$dir/notify.sock" "$dir/notify.log" &
listener=$!
daemon=
cleanup() {
    [ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
    kill "$listener" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
for _ in $(seq 50); do [ -S "$dir/notify.sock" ] && break; sleep 0.1; done

wait_for() {  # wait_for SECONDS DESCRIPTION TEST...: polls TEST every 0.2 s
    seconds=$1 description=$2
    shift 2
    tries=$((seconds * 5))
    until "$@"; do
        kill -0 "$daemon" 2>/dev/null || fail "the daemon exited while waiting for $description"
        tries=$((tries - 1))
        [ "$tries" -gt 0 ] || fail "no $description after $seconds s"
        sleep 0.2
    done
}
phase() {
    echo "daemon-workload.sh: $1 done" >&2
    if [ -n "$hook" ]; then sh -c "$hook \"\$@\"" hook "$1" "$daemon" || fail "$hook $1 $daemon failed"; fi
}
raw() {  # raw COUNT OPERATION...: each operation COUNT times on one connection, as an AlarmKit client
    python3 -c '
import json, socket, sys
connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
connection.connect(sys.argv[1])
replies = connection.makefile("rb")
number = 0
for operation in ["hello"] + [o for o in sys.argv[3:] for _ in range(int(sys.argv[2]))]:
    number += 1
    connection.sendall(json.dumps({"v": 1, "id": number, "op": operation, "params": {}}).encode() + b"\n")
    while True:
        reply = json.loads(replies.readline())
        if reply.get("id") == number: break
    if not reply.get("ok"): sys.exit(f"{operation}: {reply}")
' "$socket" "$@" || fail "the requests $* failed"
}
ready() { grep -q READY=1 "$dir/notify.log" 2>/dev/null; }
stop_daemon() {
    kill -TERM "$daemon"
    status=0
    wait "$daemon" || status=$?
    daemon=
    [ "$status" -eq 0 ] || fail "the daemon exited with status $status after SIGTERM"
    echo "daemon-workload.sh: stop done" >&2
}
alerting() { "$alarmctl" show "$1" --json --socket "$socket" 2>/dev/null | grep -q '"state" *: *"alerting"'; }
not_alerting() { ! alerting "$1"; }

start_daemon() {
    : >"$dir/notify.log"
    env NOTIFY_SOCKET="$dir/notify.sock" ${watchdog:+WATCHDOG_USEC=$watchdog} "$@" --config "$dir/alarmd.toml" \
        --board "$source_dir/board/simulated.toml" --state-dir "$dir/state" --socket "$socket" 2>>"$dir/alarmd.log" &
    daemon=$!
    wait_for 600 "READY=1" ready
}

# start
start_daemon "$@"
phase start

# requests
day=$(LC_ALL=C date -d '+2 days' +%a | tr 'A-Z' 'a-z')
for index in $(seq 0 99); do
    ctl schedule --at "$(printf '%02d:%02d' $((index % 24)) $((index % 60)))" --repeat "$day" \
        --title "Alarm $index" --snooze 9m
done
raw 50 alarms authorizationState
for _ in $(seq 20); do ctl list; done
if [ "$benchmark" = yes ]; then
    phase requests
    sleep 5
    phase idle
    stop_daemon
    exit 0
fi
for _ in $(seq 5); do ctl list --json; done
first=$("$alarmctl" list --json --socket "$socket" | grep -o '"id" *: *"[0-9A-Fa-f-]*"' | head -n 1 | sed 's/.*"\([0-9A-Fa-f-]*\)"$/\1/')
[ -n "$first" ] || fail "no alarm id in alarmctl list --json"
ctl show "$first"
ctl show "$first" --json
ctl status
ctl status --json
ctl history
ctl auth status
ctl cancel "$first"
phase requests

# idle: past the next minute boundary, and at least two watchdog pings (every 5 s)
now=$(date +%s)
sleep $((60 - now % 60 + 2))
[ $((60 - now % 60 + 2)) -ge 12 ] || sleep 10
phase idle

# alert
alarm=$(cat /proc/sys/kernel/random/uuid)
ctl schedule --on "$(date -u -d '+10 seconds' +%Y-%m-%dT%H:%M:%SZ)" --title Wake --snooze 5s --id "$alarm"
wait_for 60 "alert of the alarm" alerting "$alarm"
sleep 4
ctl snooze "$alarm"
wait_for 30 "end of the alert after snooze" not_alerting "$alarm"
wait_for 60 "second alert after the snooze" alerting "$alarm"
sleep 3
ctl stop "$alarm"
timer=$(cat /proc/sys/kernel/random/uuid)
ctl timer 4s --title Tea --id "$timer"
wait_for 60 "alert of the timer" alerting "$timer"
sleep 3
ctl stop "$timer"
sleep 3
phase alert
stop_daemon

# restart: a boot, with the alarms stored above (journal and snapshot read back)
start_daemon "$@"
ctl list
sleep 5
phase restart
stop_daemon
