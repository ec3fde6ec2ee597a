#!/bin/bash
# alarm-mqtt measured from outside: how fast a change of the clock reaches a subscriber on the
# broker, how fast a command from the broker acts, and what the bridge costs while idle.
#
#   Benchmarks/mqtt-bridge.sh [-n REPETITIONS] [-s IDLE_SECONDS] BIN_DIR
#
#   swift build -c release --product alarmd --product alarmctl --product alarm-mqtt
#   Benchmarks/mqtt-bridge.sh -n 20 -s 300 .build/release
#
# Starts Debian's mosquitto on a free loopback port (the installed one, or the copy
# deploy/install-build-deps unpacks), alarmd on the simulated board, alarm-mqtt between them
# and mosquitto_sub (installed from Debian if missing), which stamps each message as it arrives.
# Run it as root (alarmd runs without a configuration, so only root is its administrator).
# Then REPETITIONS times (default 20): an alarm 2-3 s ahead (alarmctl schedule --on); the time
# from its due second to the `alerting` state on the broker (the engine's alert, the device
# change, the bridge's reads of alarmd and its publish); then STOP published to the broker and the
# time to the `idle` state (the bridge's command, alarmd's stop, the change back). Prints the
# median and worst of each. Then IDLE_SECONDS (default 300) with nothing to do: alarm-mqtt's
# context switches (perf stat), its CPU time and RSS, and how many messages it published.
set -eu
repetitions=20
idle=300
while getopts n:s: option; do
    case $option in
    n) repetitions=$OPTARG ;;
    s) idle=$OPTARG ;;
    *) exit 64 ;;
    esac
done
shift $((OPTIND - 1))
[ $# = 1 ] || { echo "usage: $0 [-n REPETITIONS] [-s IDLE_SECONDS] BIN_DIR" >&2; exit 64; }
bin=$(cd "$1" && pwd)
command -v mosquitto_sub >/dev/null || apt-get install -y --no-install-recommends mosquitto-clients >&2
broker=/usr/sbin/mosquitto
[ -x "$broker" ] || broker=${XDG_CACHE_HOME:-$HOME/.cache}/alarmd/mosquitto/usr/sbin/mosquitto
[ -x "$broker" ] || { echo "$0: no mosquitto: run deploy/install-build-deps" >&2; exit 69; }

work=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
{ [ "$(id -u)" = 0 ] && echo "user root"; printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$port"; } >"$work/broker.conf"
"$broker" -c "$work/broker.conf" 2>"$work/broker.log" &
pids="$pids $!"
for _ in $(seq 100); do grep -q ' running' "$work/broker.log" && break; sleep 0.1; done
socket=$work/control.sock
"$bin/alarmd" run --board simulated --config /dev/null --socket "$socket" --state-dir "$work/state" --log-level warning \
    2>"$work/alarmd.log" &
pids="$pids $!"
until "$bin/alarmctl" --socket "$socket" list >/dev/null 2>&1; do sleep 0.1; done
: >"$work/messages.txt"
stdbuf -oL mosquitto_sub -h 127.0.0.1 -p "$port" -v -F '@s.@N %t %p' -t 'alarmd/bench/#' >"$work/messages.txt" &
pids="$pids $!"
printf '[mqtt]\nnode_id = "bench"\n' >"$work/alarm-mqtt.toml"
"$bin/alarm-mqtt" --broker "mqtt://127.0.0.1:$port" --socket "$socket" --config "$work/alarm-mqtt.toml" --log-level notice \
    2>"$work/alarm-mqtt.log" &
bridge=$!
pids="$pids $bridge"
tries=0
until grep -q ' alarmd/bench/state idle' "$work/messages.txt"; do
    tries=$((tries + 1))
    [ $tries -lt 300 ] || { echo "$0: alarm-mqtt published no state in 30 s (it must be root or in alarmd-admin):" >&2; cat "$work/alarm-mqtt.log" >&2; exit 1; }
    sleep 0.1
done

# The first message on TOPIC with PAYLOAD after instant AFTER (seconds), waiting for it.
arrival() {
    local found tries=0
    while :; do
        found=$(awk -v t="$3" -v topic="$1" -v payload="$2" '$2 == topic && $3 == payload && $1 > t { print $1; exit }' "$work/messages.txt")
        [ -n "$found" ] && { echo "$found"; return; }
        tries=$((tries + 1))
        [ $tries -lt 200 ] || { echo "$0: no $1 $2 after $3" >&2; exit 1; }
        sleep 0.05
    done
}

: >"$work/alerting.txt"
: >"$work/stopped.txt"
for _ in $(seq "$repetitions"); do
    due=$(( $(date +%s) + 3 ))
    "$bin/alarmctl" --socket "$socket" schedule --on "$(date -u -d "@$due" +%Y-%m-%dT%H:%M:%SZ)" --title Bench >/dev/null
    alerting=$(arrival alarmd/bench/state alerting "$due")
    echo "$alerting - $due" | bc -l >>"$work/alerting.txt"
    sleep 0.5
    sent=$(date +%s.%N)
    mosquitto_pub -h 127.0.0.1 -p "$port" -q 1 -t alarmd/bench/cmd/stop -m PRESS
    stopped=$(arrival alarmd/bench/state idle "$sent")
    echo "$stopped - $sent" | bc -l >>"$work/stopped.txt"
    sleep 0.5
done

stats() { sort -g "$1" | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "median %.1f ms, worst %.1f ms (%d)", m * 1000, v[NR] * 1000, NR }'; }
echo "alarm due -> alerting on the broker: $(stats "$work/alerting.txt")"
echo "STOP published -> idle on the broker: $(stats "$work/stopped.txt") (includes mosquitto_pub's start)"

sleep 5
before=$(wc -l <"$work/messages.txt")
ticks=$(awk '{ print $14 + $15 }' "/proc/$bridge/stat")
perf stat -x, -e context-switches,task-clock -p "$bridge" -o "$work/perf.csv" -- sleep "$idle"
switches=$(awk -F, '/context-switches/ { print $1 }' "$work/perf.csv")
milliseconds=$(awk -F, '/task-clock/ { print $1 }' "$work/perf.csv")
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$bridge/status")
threads=$(ls "/proc/$bridge/task" | wc -l)
published=$(( $(wc -l <"$work/messages.txt") - before ))
ticks=$(( $(awk '{ print $14 + $15 }' "/proc/$bridge/stat") - ticks ))
awk -v s="$switches" -v d="$idle" -v ms="$milliseconds" -v r="$rss" -v t="$threads" -v p="$published" -v k="$ticks" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "alarm-mqtt idle %d s: %d context switches (%.1f/min), CPU %.4f %% (%.2f s), RSS %.1f MiB, %d threads, %d messages published\n", d, s, s * 60 / d, ms / 10 / d, k / hz, r / 1024, t, p }'
