# The host's half of the integration scenarios, sourced by run-vm: it judges the evidence each
# guest episode hands over (Tests/Integration/guest/vm-test) with the probe (alarm-vm-probe, the
# same binary the guest records with, run natively here) and jq, and writes one verdict per
# scenario. Every analysis is kept beside the evidence as NAME.json.
#
# Needs: $probe, $results, $repo. Instants are CLOCK_REALTIME seconds of the guest.

# --- Helpers -------------------------------------------------------------------------------------

calc() { awk "BEGIN { printf \"%.6f\", $* }"; }
problems=()
# expect WHAT COMMAND...: one expectation; WHAT is the failure's reason.
expect() {
    local what=$1
    shift
    "$@" >/dev/null 2>&1 || problems+=("$what")
}
# jexpect WHAT FILE JQ [jq args...]: an expectation on a JSON file.
jexpect() {
    local what=$1 file=$2 expression=$3
    shift 3
    jq -e "$@" "$expression" "$file" >/dev/null 2>&1 || problems+=("$what")
}
jv() { jq -r "$@" 2>/dev/null || echo "?"; }   # jv FILTER FILE [args]: a value for a message

# Loads an episode's facts.env as f_KEY variables.
load_facts() {
    local key value
    while IFS='=' read -r key value; do
        [ -n "$key" ] && printf -v "f_$key" '%s' "$value"
    done <"$1/facts.env"
}
# The probe's analyses, saved in the episode's folder: sound|silence|led NAME SOURCE ARGS...
analyse() {
    local kind=$1 name=$2 source=$3
    shift 3
    "$probe" "$kind" "$source" "$@" >"$(dirname "$source")/$name.json" 2>>"$(dirname "$source")/probe.err" || true
}
# lcd DIR NAME ROLE [--at T]: the display decoded from the episode's trace snapshot.
lcd() {
    local dir=$1 name=$2 role=$3 offset
    shift 3
    local file=$dir/clock-offset.json
    [ -f "$file" ] || file=$results/$role/clock-offset.json
    offset=$(jq -r .offset "$file" 2>/dev/null)
    "$probe" lcd "$dir/trace.txt" --address 0x27 --rows 2 --columns 16 --clock-offset "$offset" "$@" \
        >"$dir/$name.json" 2>>"$dir/probe.err" || true
}
ms() { awk "BEGIN { printf \"%.0f\", ($1) * 1000 }"; }     # ms SECONDS-EXPRESSION
epoch() { date -u -d "$1" +%s 2>/dev/null || echo 0; }     # epoch ISO8601

# verdict NAME [SUMMARY]: PASS or FAIL from $problems, printed and kept in $results/verdicts.
verdict() {
    local name=$1 summary=${2:-} line reasons
    if [ ${#problems[@]} = 0 ]; then
        line="PASS $name${summary:+ ($summary)}"
    else
        reasons=$(printf '%s; ' "${problems[@]}")
        line="FAIL $name: ${reasons%; }${summary:+ ($summary)}"
    fi
    echo "$line" | tee -a "$results/verdicts"
    problems=()
}

# --- boot -----------------------------------------------------------------------------------------

judge_boot() {
    local dir=$1 show=$1/systemctl-show.txt
    prop() { sed -n "s/^$1=//p" "$show"; }
    expect "the installed alarmd.service differs from deploy/alarmd.service" \
        test "$(cut -d' ' -f1 "$dir/unit.sha256")" = "$(sha256sum <"$repo/deploy/alarmd.service" | cut -d' ' -f1)"
    expect "drop-ins change alarmd.service ($(prop DropInPaths))" test -z "$(prop DropInPaths)"
    expect "Type is $(prop Type), not notify" test "$(prop Type)" = notify
    # A Type=notify service is active only once it sent READY=1.
    expect "not active/running after READY=1 ($(prop ActiveState)/$(prop SubState))" \
        test "$(prop ActiveState)/$(prop SubState)" = active/running
    expect "restarted $(prop NRestarts) times" test "$(prop NRestarts)" = 0
    expect "runs as $(tr -d ' \n' <"$dir/user.txt"), not alarmd" test "$(tr -d ' \n' <"$dir/user.txt")" = alarmd
    expect "the journal has no \"alarmd ready\"" grep -q 'alarmd ready' "$dir/alarmd-journal.txt"
    expect "the packaged alarmd does not run on bookworm's libgpiod.so.2 ($(awk '{ print $6 }' "$dir/libgpiod-mapped.txt" | sort -u | tr '\n' ' '))" \
        grep -q 'libgpiod.so.2' "$dir/libgpiod-mapped.txt"
    jexpect "board is not qemu" "$dir/status.json" '.board == "qemu"'
    jexpect "clock not trusted" "$dir/status.json" '.clockTrusted == true'
    jexpect "not every part ok: $(jv -c '[.parts[] | "\(.name) \(.state)"]' "$dir/status.json")" "$dir/status.json" \
        '(.parts | length) >= 4 and all(.parts[]; .state == "ok")'
    # Boot to READY: systemd's monotonic instants (microseconds since the kernel started).
    local ready started
    ready=$(awk -v t="$(prop ActiveEnterTimestampMonotonic)" 'BEGIN { printf "%.1f", t / 1e6 }')
    started=$(awk -v a="$(prop ActiveEnterTimestampMonotonic)" -v s="$(prop ExecMainStartTimestampMonotonic)" 'BEGIN { printf "%.0f", (a - s) / 1e3 }')
    verdict boot "READY via systemd $ready s after the kernel started (alarmd $started ms from exec), libgpiod.so.2; StatusText \"$(prop StatusText)\"; parts $(jv -c '[.parts[] | "\(.name) \(.state)"] | join(", ")' "$dir/status.json")"
}

# --- ring: the alert (alarm), then SNOOZE, the second ring and STOP (snooze) ----------------------

ring_summary=
judge_alert_part() {
    local dir=$1 role=$2 s p1 at
    load_facts "$dir"
    s=$f_alarm_at p1=$f_press_snooze
    jexpect "alarmctl schedule did not schedule it: $(head -c 300 "$dir/schedule.json" 2>/dev/null)" "$dir/schedule.json" '.alarm.id != null'
    analyse sound sound-ring "$dir/audio" --after "$(calc "$s - 1")" --before "$p1"
    analyse led led-ring "$dir/led.txt" --after "$(calc "$s - 1")" --before "$p1"
    at=$(calc "($s + 1.4 < $p1 - 0.05) ? $s + 1.4 : $p1 - 0.05")
    lcd "$dir" lcd-ring "$role" --at "$at"
    jexpect "not alerting at its time ($(jv .alarm.state "$dir/show-ringing.json"))" "$dir/show-ringing.json" '.alarm.state == "alerting"'
    jexpect "no sound within 1 s of its time (first sound $(jv .first_sound "$dir/sound-ring.json"), due $s)" "$dir/sound-ring.json" \
        '.first_sound != null and .first_sound - $s > -0.05 and .first_sound - $s < 1' --argjson s "$s"
    jexpect "not the 2,000 Hz tone ($(jv .frequency_hz "$dir/sound-ring.json") Hz)" "$dir/sound-ring.json" '.frequency_hz > 1950 and .frequency_hz < 2050'
    jexpect "level not about -7 dBFS ($(jv .peak_dbfs "$dir/sound-ring.json") dBFS peak)" "$dir/sound-ring.json" '.peak_dbfs > -12 and .peak_dbfs < -3'
    jexpect "the LED did not go high within 1 s ($(jv .first_high "$dir/led-ring.json"))" "$dir/led-ring.json" \
        '.first_high != null and .first_high - $s > -0.05 and .first_high - $s < 1' --argjson s "$s"
    jexpect "the LED does not blink at 2 Hz ($(jv -c '[.pattern, .period_ms]' "$dir/led-ring.json"))" "$dir/led-ring.json" \
        '.pattern == "blink" and .period_ms > 400 and .period_ms < 600'
    jexpect "the LCD does not show the alert ($(jv -c .text "$dir/lcd-ring.json"))" "$dir/lcd-ring.json" \
        '(.text[0] | contains("Wake VM")) and (.text[1] | contains("Stop")) and .backlight == true'
    ring_summary="sound +$(ms "$(jv .first_sound "$dir/sound-ring.json") - $s") ms at $(jv .frequency_hz "$dir/sound-ring.json") Hz $(jv .peak_dbfs "$dir/sound-ring.json") dBFS, LED +$(ms "$(jv .first_high "$dir/led-ring.json") - $s") ms, LCD \"$(jv '.text | join(" / ")' "$dir/lcd-ring.json")\""
}

snooze_summary=
judge_snooze_part() {
    local dir=$1 role=$2 p1 p2
    load_facts "$dir"
    p1=$f_press_snooze p2=$f_press_stop
    analyse silence silence-snooze "$dir/audio" --after "$p1" --before "$(calc "$p1 + 3.5")" --min 1.0
    analyse led led-snoozed "$dir/led.txt" --after "$(calc "$p1 + 0.5")" --before "$(calc "$p1 + 9.5")"
    lcd "$dir" lcd-snoozed "$role" --at "$(calc "$p1 + 3")"
    analyse sound sound-again "$dir/audio" --after "$(calc "$p1 + 5")" --before "$p2"
    analyse led led-again "$dir/led.txt" --after "$(calc "$p1 + 10.5")" --before "$p2"
    analyse silence silence-stop "$dir/audio" --after "$p2" --min 1.0
    analyse led led-stopped "$dir/led.txt" --after "$(calc "$p2 + 0.5")"
    jexpect "SNOOZE did not silence it ($(jv -c '[.silent, .delay_ms]' "$dir/silence-snooze.json"))" "$dir/silence-snooze.json" '.silent == true and .delay_ms < 1000'
    jexpect "not counting down after SNOOZE ($(jv .alarm.state "$dir/show-snoozed.json"))" "$dir/show-snoozed.json" '.alarm.state == "countdown"'
    jexpect "the LED kept the alert's pattern ($(jv -c '[.pattern, .period_ms, .transitions]' "$dir/led-snoozed.json"))" "$dir/led-snoozed.json" \
        '.transitions <= 6 and (.period_ms == null or .period_ms > 1500)'
    jexpect "the LCD does not show the snooze countdown ($(jv -c .text "$dir/lcd-snoozed.json"))" "$dir/lcd-snoozed.json" \
        '(.text[0] | contains("Wake VM")) and (.text[1] | test("00:0[4-9]"))'
    jexpect "did not ring again 10 s after SNOOZE ($(jv .first_sound "$dir/sound-again.json"))" "$dir/sound-again.json" \
        '.first_sound != null and .first_sound - $p > 9.5 and .first_sound - $p < 11.5' --argjson p "$p1"
    jexpect "not alerting again ($(jv .alarm.state "$dir/show-again.json"))" "$dir/show-again.json" '.alarm.state == "alerting"'
    jexpect "the LED does not blink on the second ring ($(jv .pattern "$dir/led-again.json"))" "$dir/led-again.json" '.pattern == "blink"'
    jexpect "STOP did not silence it ($(jv -c '[.silent, .delay_ms]' "$dir/silence-stop.json"))" "$dir/silence-stop.json" '.silent == true and .delay_ms < 1000'
    jexpect "the LED is not off after STOP ($(jv .pattern "$dir/led-stopped.json"))" "$dir/led-stopped.json" '.pattern == "off" and .level_at_end == 0'
    jexpect "the one-shot alarm is still listed after STOP" "$dir/list-after.json" '[.alarms[].id] | index($id) == null' --arg id "$f_id"
    lcd "$dir" lcd-end "$role"
    jexpect "the LCD does not show the clock after STOP ($(jv -c .text "$dir/lcd-end.json"))" "$dir/lcd-end.json" \
        '(.text[0] | test("[0-9]{2}:[0-9]{2}")) and ((.text | join(" ")) | contains("Wake VM") | not)'
    snooze_summary="SNOOZE->silence $(jv .delay_ms "$dir/silence-snooze.json") ms, LED $(jv -c '[.pattern, .period_ms]' "$dir/led-snoozed.json"), LCD \"$(jv '.text | join(" / ")' "$dir/lcd-snoozed.json")\", rang again +$(ms "$(jv .first_sound "$dir/sound-again.json") - $p1") ms, STOP->silence $(jv .delay_ms "$dir/silence-stop.json") ms"
}

judge_ring() {
    judge_alert_part "$1" main
    verdict alarm "$ring_summary"
    judge_snooze_part "$1" main
    verdict snooze "$snooze_summary"
}

# --- timer: SNOOZE pauses and resumes; STOP held cancels ------------------------------------------

judge_timer() {
    local dir=$1 p1 p2 p3 r1 r2 next
    load_facts "$dir"
    p1=$f_press_pause p2=$f_press_resume p3=$f_press_hold
    r1=$(jv .alarm.remaining "$dir/show-paused.json")
    r2=$(jv .alarm.remaining "$dir/show-still-paused.json")
    next=$(epoch "$(jv .alarm.nextAlert "$dir/show-resumed.json")")
    analyse led led-paused "$dir/led.txt" --after "$(calc "$p1 + 0.5")" --before "$p2"
    lcd "$dir" lcd-counting main --at "$(calc "$p1 - 0.1")"
    lcd "$dir" lcd-paused main --at "$(calc "$p1 + 3")"
    lcd "$dir" lcd-resumed main --at "$(calc "$p2 + 1.5")"
    lcd "$dir" lcd-cancelled main --at "$(calc "$p3 + 3.2")"
    jexpect "the LCD does not show the timer counting ($(jv -c .text "$dir/lcd-counting.json"))" "$dir/lcd-counting.json" \
        '(.text[0] | contains("Tea VM")) and (.text[1] | test("00:1[0-9]"))'
    jexpect "SNOOZE did not pause it ($(jv .alarm.state "$dir/show-paused.json"))" "$dir/show-paused.json" '.alarm.state == "paused"'
    expect "the paused time moved ($r1 s, then $r2 s)" test "$r1" = "$r2"
    jexpect "the LCD does not show the paused time ($(jv -c .text "$dir/lcd-paused.json"))" "$dir/lcd-paused.json" \
        '(.text[0] | contains("Tea VM")) and (((.text[1] | capture("00:(?<s>[0-9]{2})").s | tonumber) - $r) | fabs) <= 1' --argjson r "${r2:-0}"
    jexpect "the LED is not steady while paused ($(jv -c '[.pattern, .transitions]' "$dir/led-paused.json"))" "$dir/led-paused.json" '.pattern == "on"'
    jexpect "SNOOZE again did not resume it ($(jv .alarm.state "$dir/show-resumed.json"))" "$dir/show-resumed.json" '.alarm.state == "countdown"'
    # Resumed where it stopped: it now ends the paused remainder after the resuming press.
    expect "did not resume where it stopped (ends $next, expected $(calc "$p2 + ${r2:-0}"))" \
        awk "BEGIN { d = $next - ($p2 + ${r2:-0}); exit !(d > -1.5 && d < 1.5) }"
    jexpect "the LCD does not count again ($(jv -c .text "$dir/lcd-resumed.json"))" "$dir/lcd-resumed.json" \
        '(.text[0] | contains("Tea VM")) and (.text[1] | test("00:[0-9][0-9]"))'
    jexpect "holding STOP did not cancel the timer" "$dir/list-after.json" '[.alarms[].id] | index($id) == null' --arg id "$f_id"
    jexpect "the LCD still shows the timer after it was cancelled ($(jv -c .text "$dir/lcd-cancelled.json"))" "$dir/lcd-cancelled.json" \
        '(.text | join(" ") | contains("Tea VM")) | not'
    verdict timer "paused at $r1 s and stood still ($r2 s); resumed to end at +$(calc "$next - $p2" | cut -d. -f1) s; LCD paused \"$(jv '.text | join(" / ")' "$dir/lcd-paused.json")\""
}

# --- intent: STOP delivers the alarm's stop intent to its owner's client ------------------------------

judge_intent() {
    local dir=$1 live later pressed_at
    load_facts "$dir"
    live=$dir/watch-live.jsonl later=$dir/watch-later.jsonl
    expect "the watching client did not get the intent of the STOP press ($(grep -c intent "$live" 2>/dev/null) intent lines)" \
        jq -se --arg id "$f_id" 'map(select(.intent == "coffee" and .id == $id and .button == "stop")) | length == 1' "$live"
    pressed_at=$(epoch "$(jq -sr 'map(select(.intent == "coffee"))[0].time' "$live" 2>/dev/null)")
    expect "the intent's time ($pressed_at) is not the press's ($f_press_stop)" \
        awk "BEGIN { d = $pressed_at - $f_press_stop; exit !(d > -2 && d < 2) }"
    expect "a client connecting after the press did not get the waiting intent" \
        jq -se --arg id "$f_waiting_id" 'map(select(.intent == "lights" and .id == $id)) | length == 1' "$later"
    expect "an acknowledged intent was delivered again" \
        jq -se 'map(select(.intent == "coffee")) | length == 0' "$later"
    expect "alarmd did not log the delivery" grep -q "Alarm intent sent to its client" "$dir/alarmd-journal.txt"
    verdict intent "live: $(jv -sc 'map(select(.intent)) | .[0] | {intent, button}' "$live"); after a press with nobody listening: $(jv -sc 'map(select(.intent)) | map(.intent)' "$later")"
}

# --- restart: kill -9 mid-countdown ----------------------------------------------------------------

judge_restart() {
    local dir=$1 n0 n1 pid0 pid1 due
    load_facts "$dir"
    n0=$(sed -n 's/^NRestarts=//p' "$dir/before.txt") n1=$(sed -n 's/^NRestarts=//p' "$dir/after.txt")
    pid0=$(sed -n 's/^MainPID=//p' "$dir/before.txt") pid1=$(sed -n 's/^MainPID=//p' "$dir/after.txt")
    expect "systemd did not restart alarmd (NRestarts $n0 -> $n1)" test "$n1" = $((n0 + 1))
    expect "the same process still runs ($pid0 -> $pid1)" test "$pid0" != "$pid1"
    expect "not active/running after the restart ($(tr '\n' ' ' <"$dir/after.txt"))" grep -q 'SubState=running' "$dir/after.txt"
    jexpect "the timer is not counting down after the restart ($(jv .alarm.state "$dir/show-after-restart.json"))" \
        "$dir/show-after-restart.json" '.alarm.state == "countdown"'
    jexpect "its end moved ($(jv .alarm.nextAlert "$dir/timer.json") -> $(jv .alarm.nextAlert "$dir/show-after-restart.json"))" \
        "$dir/show-after-restart.json" '.alarm.nextAlert == $due' --arg due "$(jv .alarm.nextAlert "$dir/timer.json")"
    # Due 12 s (arm64: 24 s, facts.env timer_s) after alarmd created it: its journal line "Alarm
    # scheduled" (received a few ms after); alarmctl's own start is no guide on a loaded guest (it
    # once took 1.5 s).
    local line
    line=$(grep -m1 "Alarm scheduled alarm.id=$f_id" "$dir/alarmd-journal.txt" 2>/dev/null | awk '{ print $1, $2, $3 }')
    due=$(calc "$(date -u -d "$line" +%s.%N 2>/dev/null || echo "$f_started") + ${f_timer_s:-12}")
    analyse sound sound-ring "$dir/audio" --after "$f_killed"
    jexpect "did not ring at the original time (first sound $(jv .first_sound "$dir/sound-ring.json"), due $due)" "$dir/sound-ring.json" \
        '.first_sound != null and .first_sound - $d > -0.2 and .first_sound - $d < 1' --argjson d "$due"
    verdict restart "NRestarts $n0 -> $n1, pid $pid0 -> $pid1, back in $(ms "$f_restarted - $f_killed") ms; rang $(ms "$(jv .first_sound "$dir/sound-ring.json") - $due") ms after the original end"
}

# --- clock: forward over the alarm rings it once; back over it, no second ring ---------------------

judge_clock() {
    local dir=$1 a tomorrow
    load_facts "$dir"
    a=$f_alarm_at
    tomorrow=$(date -u -d "@$(( ${a%.*} + 86400 ))" +%Y-%m-%dT%H:%M:%S+00:00)
    rang() { jq --arg id "$f_id" '[.entries[] | select(.id == $id and .kind == "rang")] | length' "$1" 2>/dev/null; }
    jexpect "not scheduled for the next minute" "$dir/schedule.json" '.alarm.nextAlert == $when' \
        --arg when "$(date -u -d "@${a%.*}" +%Y-%m-%dT%H:%M:%S+00:00)"
    analyse sound sound "$dir/forward/audio" --after "$a"
    analyse led led "$dir/forward/led.txt" --after "$f_forward_at"
    jexpect "no ring after the clock jumped forward over it ($(jv .first_sound "$dir/forward/sound.json"))" "$dir/forward/sound.json" \
        '.first_sound != null and .first_sound - $j < 2' --argjson j "$f_forward_at"
    jexpect "the LED did not light after the jump" "$dir/forward/led.json" '.first_high != null'
    jexpect "not alerting after the jump ($(jv .alarm.state "$dir/forward/show.json"))" "$dir/forward/show.json" '.alarm.state == "alerting"'
    expect "history counts $(rang "$dir/forward/history.json") rings after the jump, not 1" test "$(rang "$dir/forward/history.json")" = 1
    analyse sound sound "$dir/back/audio" --after "$f_back_at"
    analyse led led "$dir/back/led.txt" --after "$f_back_at"
    jexpect "rang again after the clock went back over it ($(jv .first_sound "$dir/back/sound.json"))" "$dir/back/sound.json" '.first_sound == null'
    jexpect "the LED lit after the clock went back" "$dir/back/led.json" '.first_high == null'
    expect "history counts $(rang "$dir/back/history.json") rings after going back, not 1" test "$(rang "$dir/back/history.json")" = 1
    jexpect "not scheduled for tomorrow after ringing ($(jv -c '[.alarm.state, .alarm.nextAlert]' "$dir/back/show.json"))" "$dir/back/show.json" \
        '.alarm.state == "scheduled" and .alarm.nextAlert == $when' --arg when "$tomorrow"
    verdict clock "jumped to +3 s: rang after $(ms "$(jv .first_sound "$dir/forward/sound.json") - $f_forward_at") ms, once; back to -3 s and past it: silent, history 1 ring, next $tomorrow"
}

# --- corrupt-sound: a sound damaged after its alarm was scheduled rings the built-in tone -------------

judge_corrupt_sound() {
    local dir=$1 s
    load_facts "$dir"
    s=$f_alarm_at
    jexpect "the alarm with the MP3 was not scheduled: $(head -c 300 "$dir/schedule.json" 2>/dev/null)" "$dir/schedule.json" '.alarm.id != null'
    analyse sound sound "$dir/audio" --after "$(calc "$s - 0.5")" --before "$f_press_stop"
    jexpect "not alerting at its time ($(jv .alarm.state "$dir/show-ringing.json"))" "$dir/show-ringing.json" '.alarm.state == "alerting"'
    jexpect "no sound within 1 s of its time (first sound $(jv .first_sound "$dir/sound.json"), due $s)" "$dir/sound.json" \
        '.first_sound != null and .first_sound - $s > -0.05 and .first_sound - $s < 1' --argjson s "$s"
    jexpect "not the built-in tone's 2,000 Hz ($(jv .frequency_hz "$dir/sound.json") Hz)" "$dir/sound.json" '.frequency_hz > 1950 and .frequency_hz < 2050'
    expect "the journal does not name the damaged file ($(grep -m1 'vm-damaged' "$dir/alarmd-journal.txt" | head -c 300))" \
        grep -q 'Alarm sound could not play.*vm-damaged.mp3' "$dir/alarmd-journal.txt"
    jexpect "the status while ringing does not say the file could not play ($(jv -c '.parts[] | select(.name == "sound")' "$dir/status-ringing.json"))" \
        "$dir/status-ringing.json" 'any(.parts[]; .name == "sound" and .state == "ok" and (.detail // "" | contains("vm-damaged.mp3 could not play")))'
    jexpect "the history has no soundFailed for it ($(jv -c --arg id "$f_id" '[.entries[] | select(.id == $id)]' "$dir/history.json"))" \
        "$dir/history.json" 'any(.entries[]; .id == $id and .kind == "soundFailed" and .detail == "vm-damaged.mp3")' --arg id "$f_id"
    verdict corrupt-sound "damaged $(ms "$s - $f_damaged_at") ms before its time; the built-in tone +$(ms "$(jv .first_sound "$dir/sound.json") - $s") ms at $(jv .frequency_hz "$dir/sound.json") Hz; journal: $(grep -m1 -o 'Alarm sound could not play.*' "$dir/alarmd-journal.txt" | head -c 200)"
}

# --- household-sound: a sound added with alarmctl is kept under the sandbox and rings ----------------

judge_household_sound() {
    local dir=$1 s
    load_facts "$dir"
    s=$f_alarm_at
    expect "alarmctl sounds add failed: $(head -c 300 "$dir/add.txt")" grep -q '^exit=0' "$dir/add.txt"
    expect "the sound is not alarmd's, mode 640 ($(cat "$dir/stat.txt"))" grep -qx 'alarmd:alarmd 640' "$dir/stat.txt"
    jexpect "the alarm naming it was not scheduled: $(head -c 300 "$dir/schedule.json" 2>/dev/null)" "$dir/schedule.json" '.alarm.id != null'
    analyse sound sound "$dir/audio" --after "$(calc "$s - 0.5")" --before "$f_press_stop"
    jexpect "no sound within 1 s of its time (first sound $(jv .first_sound "$dir/sound.json"), due $s)" "$dir/sound.json" \
        '.first_sound != null and .first_sound - $s > -0.05 and .first_sound - $s < 1' --argjson s "$s"
    jexpect "not the added sound's 1,000 Hz ($(jv .frequency_hz "$dir/sound.json") Hz)" "$dir/sound.json" '.frequency_hz > 950 and .frequency_hz < 1050'
    expect "deleted while its alarm rang ($(tr '\n' ' ' <"$dir/delete-ringing.txt"))" grep -q 'is the sound of "Household VM"' "$dir/delete-ringing.txt"
    expect "not deleted once free ($(tr '\n' ' ' <"$dir/delete.txt"))" grep -q '^exit=0' "$dir/delete.txt"
    expect "the file is still there after the deletion" grep -qx absent "$dir/after-delete.txt"
    verdict household-sound "added as $(cat "$dir/stat.txt"), rang +$(ms "$(jv .first_sound "$dir/sound.json") - $s") ms at $(jv .frequency_hz "$dir/sound.json") Hz; deleting it while ringing: $(grep -o 'is the sound of "[^"]*"' "$dir/delete-ringing.txt"); after STOP deleted"
}

# --- mqtt: the packaged bridge against mosquitto in the guest ---------------------------------------

judge_mqtt() {
    local dir=$1 s first alerting idle offline lit dark
    load_facts "$dir"
    s=$f_alarm_at
    expect "alarm-mqtt did not start: $(tr '\n' ' ' <"$dir/enable.txt") $(tail -c 300 "$dir/alarm-mqtt-journal.txt")" \
        grep -q ' alarmd/vm/availability online$' "$dir/messages.txt"
    expect "no discovery on homeassistant/device/vm/config" grep -q ' homeassistant/device/vm/config {' "$dir/messages.txt"
    analyse sound sound "$dir/audio" --after "$(calc "$s - 0.5")" --before "$f_stop_sent"
    first=$(jv .first_sound "$dir/sound.json")
    alerting=$(awk -v s="$s" '$2 == "alarmd/vm/state" && $3 == "alerting" && $1 > s - 1 { print $1; exit }' "$dir/messages.txt")
    idle=$(awk -v t="$f_stop_sent" '$2 == "alarmd/vm/state" && $3 == "idle" && $1 > t { print $1; exit }' "$dir/messages.txt")
    offline=$(awk -v t="$f_killed" '$2 == "alarmd/vm/availability" && $3 == "offline" && $1 > t { print $1; exit }' "$dir/messages.txt")
    expect "no sound within 1 s of its time (first sound $first, due $s)" awk -v f="$first" -v s="$s" 'BEGIN { exit !(f != "null" && f - s > -0.05 && f - s < 1) }'
    expect "the alerting state did not reach the subscriber within a second of the sound (sound $first, message ${alerting:-none})" \
        awk -v a="${alerting:-0}" -v f="$first" 'BEGIN { exit !(a > 0 && a - f < 1) }'
    expect "STOP sent to the broker did not silence the alarm (no idle state after it)" test -n "$idle"
    expect "the command was not logged with its topic" grep -q 'MQTT command.*alarmd/vm/cmd/stop' "$dir/alarm-mqtt-journal.txt"
    jexpect "with the bridge killed the second alarm did not ring ($(jv .alerting "$dir/status-killed.json") alerting)" "$dir/status-killed.json" '.alerting == 1'
    jexpect "STOP on the clock did not silence it with the bridge gone" "$dir/status-after.json" '.alerting == 0'
    expect "the broker did not say the clock went offline (the will)" test -n "$offline"
    lit=$(<"$dir/duty-on.txt") dark=$(<"$dir/duty-off.txt")
    expect "the light switched on from the broker did not light the PWM channel (duty cycle $lit)" \
        awk -v d="$lit" 'BEGIN { exit !(d ~ /^[0-9]+$/ && d > 0) }'
    expect "the light switched off from the broker left the PWM channel at $dark" test "$dark" = 0
    expect "the light's state did not come back ON, then OFF, on the broker" \
        awk '$2 == "alarmd/vm/light" && $3 ~ /"state":"ON"/ { on = 1 } on && $2 == "alarmd/vm/light" && $3 == "{\"state\":\"OFF\"}" { off = 1 } END { exit !off }' "$dir/messages.txt"
    verdict mqtt "alerting on the broker $(ms "${alerting:-0} - $first") ms after the sound (+$(ms "$first - $s") ms), idle $(ms "${idle:-0} - $f_stop_sent") ms after STOP from the broker; light on at half: duty $lit ns, off: $dark; bridge killed: rang on, STOP worked, offline $(ms "${offline:-0} - $f_killed") ms later"
}

# --- sunrise: the light's duty cycle rises before the alarm on a real kernel's PWM ------------------

judge_sunrise() {
    local dir=$1 s period rising
    load_facts "$dir"
    s=$f_alarm_at
    period=$(<"$dir/period.txt")
    jexpect "the alarm was not scheduled: $(head -c 300 "$dir/schedule.json" 2>/dev/null)" "$dir/schedule.json" '.alarm.id != null'
    expect "the PWM channel was not exported with a 1 ms period ($(head -c 200 "$dir/period.txt"); $(head -c 300 "$dir/sysfs.txt"))" \
        test "$period" = 1000000
    expect "a duty cycle could not be read ($(grep -m1 unreadable "$dir/duty.txt"))" bash -c "! grep -q unreadable '$dir/duty.txt'"
    # Readings by phase: before the sunrise (s-20), during it, ringing (s+0.5 to the STOP), after the STOP.
    awk -v s="$s" -v p="$period" -v stop="$f_press_stop" '
        $1 < s - 20.5 && $2 != 0 { print "lit before its sunrise: " $0; bad = 1 }
        $1 > s - 19.5 && $1 < s - 0.5 { if ($2 < last) { print "fell during the sunrise: " $0; bad = 1 }; last = $2; if ($2 > 0) n++ }
        $1 > s - 10.5 && $1 < s - 9.5 && ($2 < 0.12 * p || $2 > 0.26 * p) { print "halfway not 18% (half as bright to the eye): " $0; bad = 1 }
        $1 > s + 0.5 && $1 < stop - 0.1 && $2 != p { print "not full while ringing: " $0; bad = 1 }
        $1 > stop + 1 && $2 != 0 { print "still lit after STOP: " $0; bad = 1 }
        END { if (n < 20) { print "only " n " rising readings in the sunrise"; bad = 1 }; exit bad }
    ' "$dir/duty.txt" >"$dir/sunrise-check.txt"
    expect "$(head -c 400 "$dir/sunrise-check.txt")" test ! -s "$dir/sunrise-check.txt"
    jexpect "the status while ringing has no working light ($(jv -c '.parts[] | select(.name == "light")' "$dir/status-ringing.json"))" \
        "$dir/status-ringing.json" 'any(.parts[]; .name == "light" and .state == "ok")'
    rising=$(awk -v s="$s" '$1 > s - 20 && $1 < s && $2 > 0 { n++ } END { print n + 0 }' "$dir/duty.txt")
    verdict sunrise "pwm-sim (device $(basename "$(cat "$dir/device.txt")")): dark until $(calc "20") s before, $rising rising readings, halfway $(awk -v s="$s" '$1 > s - 10.3 && $1 < s - 9.7 { print $2; exit }' "$dir/duty.txt") of $period ns, full while ringing, off after STOP"
}

# --- measurements ----------------------------------------------------------------------------------

# The table: the alarm's time to its first sound, and a STOP press to silence, in ms; with where
# the first goes: alarmd's "Alarm alerting" journal line (the engine woke; journald's receipt
# time, an upper bound) and ALSA's trigger_time (alarmd started the playback).
judge_measurements() {
    local dir=$1 i s p next_s fire quiet freq id logged trigger offset line
    offset=$(jq -r .offset "$dir/clock-offset.json" 2>/dev/null || echo 0)
    : >"$dir/latencies.txt"
    mapfile -t lines <"$dir/reps.txt"
    for ((i = 0; i < ${#lines[@]}; i++)); do
        read -r _ s p returned format <<<"${lines[i]}"
        # The next alarm is at least 1.9 s after the press (vm-test: 0.1 s hold, 0.3 s, 1.5 s lead).
        next_s=$(calc "$p + 1.3")
        analyse sound "sound-$i" "$dir/audio" --after "$(calc "$s - 0.5")" --before "$p"
        analyse silence "silence-$i" "$dir/audio" --after "$p" --before "$next_s" --min 1.0
        fire=$(jq -r --argjson s "$s" 'if .first_sound then (.first_sound - $s) * 1000 else "none" end' "$dir/sound-$i.json" 2>/dev/null || echo none)
        freq=$(jv '.frequency_hz // "none"' "$dir/sound-$i.json")
        quiet=$(jq -r 'if .silent then .delay_ms else "none" end' "$dir/silence-$i.json" 2>/dev/null || echo none)
        id=$(jv .alarm.id "$dir/schedule-$i.json")
        line=$(grep -m1 "Alarm alerting alarm.id=$id" "$dir/alarmd-journal.txt" 2>/dev/null | awk '{ print $1, $2, $3 }')
        logged=none
        [ -n "$line" ] && logged=$(calc "($(date -u -d "$line" +%s.%N) - $s) * 1000")
        # trigger_time in CLOCK_MONOTONIC, to realtime with the boot's offset; the first one of
        # this repetition's window.
        trigger=$(awk -v s="$s" -v o="$offset" '{ t = $2 < 1e9 ? $2 + o : $2; if (t > s - 0.5 && t < s + 1.5) { printf "%.3f", (t - s) * 1000; exit } }' "$dir/triggers.txt" 2>/dev/null)
        # REP DUE FIRE_MS PRESS SILENCE_MS FREQ JOURNAL_MS TRIGGER_MS ALARMCTL_LEAD_S FORMAT
        echo "$i $s $fire $p $quiet $freq ${logged} ${trigger:-none} $(calc "$s - ${returned:-$s}") ${format:-wav}" >>"$dir/latencies.txt"
    done
    local builtin
    builtin=$(jq -r --argjson s "$(sed -n 's/^alarm_at=//p' "$results/main/ring/facts.env" 2>/dev/null || echo 0)" \
        '(.first_sound - $s) * 1000 | floor' "$results/main/ring/sound-ring.json" 2>/dev/null || echo "?")
    awk -v builtin="$builtin" '
        function sort(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
        function median(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
        function row(label, a, n) { sort(a, n); printf "%-50s %4d %8.1f %8.1f %7s\n", label, n, n ? median(a, n) : -1, n ? a[n] : -1, target; target = "" }
        {
            if ($3 != "none") { fire[++nf] = $3; byformat[$10, ++count[$10]] = $3 }
            if ($5 != "none") quiet[++nq] = $5
            if ($7 != "none") logged[++nl] = $7
            if ($8 != "none") trig[++nt] = $8
            if ($8 != "none" && $3 != "none") after[++na] = $3 - $8
            if ($6 > 950 && $6 < 1050) tone++
            if (NR == 1 || $9 < lead) lead = $9
        }
        END {
            printf "%-50s %4s %8s %8s %7s\n", "measurement (QEMU TCG guest), ms", "reps", "median", "worst", "target"
            target = "50"; row("alarm time -> first sound captured", fire, nf)
            target = "50"; row("STOP press -> silence captured", quiet, nq)
            printf "alarm time -> first sound captured, by the sound file'\''s format:\n"
            split("wav mp3 flac", formats, " ")
            for (f = 1; f <= 3; f++) {
                n = count[formats[f]]; delete one
                for (k = 1; k <= n; k++) one[k] = byformat[formats[f], k]
                target = "50"; row("  " toupper(formats[f]), one, n)
                sort(one, n); medians = medians sprintf(" %.1f", n ? median(one, n) : -1)
            }
            printf "where the first goes:\n"
            row("  alarm time -> \"Alarm alerting\" journaled", logged, nl)
            row("  alarm time -> ALSA trigger (playback started)", trig, nt)
            row("  ALSA trigger -> first sound captured", after, na)
            printf "(each repetition plays a continuous 1 kHz tone, a WAV, an MP3 (lame) and a FLAC (flac) in turn, %d of %d captured at 1 kHz; alarmctl had returned at least %.2f s before each alarm;\n the built-in tone in the ring scenario, the first alert after boot: %s ms to sound)\n", tone, NR, lead, builtin
            sort(fire, nf); sort(quiet, nq)
            printf "%d %d %d %.1f %.1f %.1f %.1f %d%s\n", NR, nf, nq, nf ? median(fire, nf) : -1, nf ? fire[nf] : -1, nq ? median(quiet, nq) : -1, nq ? quiet[nq] : -1, tone, medians > "/dev/stderr"
        }' "$dir/latencies.txt" >"$results/measurements.txt" 2>"$dir/summary.txt"
    cp "$results/measurements.txt" "$dir/table.txt"
    local reps nf nq fire_median fire_worst quiet_median quiet_worst tone wav_median mp3_median flac_median
    read -r reps nf nq fire_median fire_worst quiet_median quiet_worst tone wav_median mp3_median flac_median <"$dir/summary.txt"
    expect "only $nf of $reps rings measured (at least 20)" test "$nf" -ge 20
    expect "only $nq of $reps silences measured (at least 20)" test "$nq" -ge 20
    expect "the sound files did not play ($tone of $reps captures at 1 kHz)" test "$tone" = "$reps"
    expect "alarm->sound median with the MP3 $mp3_median ms, with the FLAC $flac_median ms (target 50 ms each)" \
        awk "BEGIN { exit !($mp3_median >= 0 && $mp3_median <= 50 && $flac_median >= 0 && $flac_median <= 50) }"
    load_facts "$dir"
    expect "the phone page's event stream sent $f_page_events states while alarms were scheduled and stopped (at least $reps)" \
        test "${f_page_events:-0}" -ge "$reps"
    # Flooded, each of its fetches (every 0.5 s, one after the other) takes 2-3 s under TCG, a
    # repetition about 2.6 s: at least one per two repetitions, and none refused.
    expect "the phone page answered $f_page_polls state requests (at least $(( (reps + 1) / 2 ))), refused $f_page_refused" \
        test "${f_page_polls:-0}" -ge $(( (reps + 1) / 2 )) -a "${f_page_refused:-1}" = 0
    # Under the LAN flood (alarm-web-flood): the alarm still sounds within 50 ms at the median,
    # the flood was real, the paired phone kept being answered, and alarm-web neither died nor
    # grew past 64 MiB.
    local flood=$dir/flood.json
    expect "alarm->sound median $fire_median ms under the flood (target 50 ms)" awk "BEGIN { exit !($fire_median <= 50) }"
    jexpect "the flood opened $(jv .idleOpened "$flood") idle connections (at least 2,000)" "$flood" '.idleOpened >= 2000'
    jexpect "the flood sent $(jv .hugeHeadersSent "$flood") 1 MiB headers and started $(jv .hugeBodiesStarted "$flood") 512 MiB bodies" \
        "$flood" '.hugeHeadersSent >= 1 and .hugeBodiesStarted >= 1'
    jexpect "the paired phone got $(jv '.phoneAnswers["200"] // 0' "$flood") answers of $(jv .phoneRequests "$flood") during the flood (at least 90 % 200; answers by status, 0 none: $(jq -c '.phoneAnswers' "$flood"), p95 $(jv '.phoneP95Ms | floor' "$flood") ms, max $(jv '.phoneMaxMs | floor' "$flood") ms)" \
        "$flood" '.phoneRequests >= 10 and (.phoneAnswers["200"] // 0) >= 0.9 * .phoneRequests'
    jexpect "alarm-web's peak RSS under the flood was $(jv .rssPeakMiB "$flood") MiB (under 64)" "$flood" '.rssPeakMiB != null and .rssPeakMiB < 64'
    expect "alarm-web is $f_web_active after the flood, restarted $f_web_restarts times, pid $f_web_pid -> $f_web_pid_after" \
        test "$f_web_active" = active -a "$f_web_restarts" = 0 -a "$f_web_pid" = "$f_web_pid_after"
    verdict measurements "alarm->sound median $fire_median ms, worst $fire_worst ms (WAV $wav_median, MP3 $mp3_median, FLAC $flac_median ms); STOP->silence median $quiet_median ms, worst $quiet_worst ms; target 50 ms each; with the phone page open ($f_page_events states streamed, $f_page_polls fetched) and alarm-web flooded ($(jv .idleOpened "$flood") idle connections, $(jv .hugeHeadersSent "$flood") 1 MiB headers, $(jv .hugeBodiesStarted "$flood") 512 MiB bodies; the phone answered $(jv '.phoneAnswers["200"] // 0' "$flood")/$(jv .phoneRequests "$flood"), median $(jv '.phoneMedianMs | floor' "$flood") ms; RSS peak $(jv .rssPeakMiB "$flood") MiB; CPU over the flood's $(jv '.seconds' "$flood") s: alarm-web $(( (f_web_cpu_ticks_at_stop - f_web_cpu_ticks_at_start) * 10 )) ms, alarmd $(( (f_alarmd_cpu_ticks_at_stop - f_alarmd_cpu_ticks_at_start) * 10 )) ms)"
}

# --- zone-fifo and watchdog: one episode (vm-test's episode_watchdog) -------------------------------

# The instant of a journal line (short-precise), as CLOCK_REALTIME seconds; 0 if there is none.
journal_time() {
    [ -n "$1" ] || { echo 0; return; }
    date -u -d "$(awk '{ print $1, $2, $3 }' <<<"$1")" +%s.%N 2>/dev/null || echo 0
}

judge_watchdog() {
    local dir=$1 journal=$1/alarmd-journal.txt n0 n1 pid0 pid1 timeout_at held_at tid
    load_facts "$dir"
    # A FIFO renamed over the zone file /etc/localtime leads to: refused without blocking, the
    # zone kept, alarms ring.
    analyse sound sound-fifo "$dir/audio" --after "$(calc "$f_fifo_alarm_at - 1")" --before "$f_press_fifo"
    expect "alarmd did not follow /etc/localtime to Europe/Berlin before the FIFO" \
        grep -q 'Time zone changed; re-evaluating relative alarms.*timezone.to=Europe/Berlin' "$journal"
    local refused_at
    refused_at=$(journal_time "$(grep -m1 'Time zone unreadable; keeping the previous one.*cannot read time zone file /etc/localtime: a FIFO, not a regular file' "$journal")")
    expect "alarmd did not refuse the FIFO as its zone file while it was there" \
        awk "BEGIN { exit !($refused_at >= $f_fifo_at - 0.5 && $refused_at <= $f_fifo_removed + 0.5) }"
    jexpect "the alarm set after the FIFO is not alerting ($(jv .alarm.state "$dir/show-fifo.json"))" "$dir/show-fifo.json" \
        '.alarm.state == "alerting"'
    jexpect "no sound within 1 s of its time (first sound $(jv .first_sound "$dir/sound-fifo.json"), due $f_fifo_alarm_at)" \
        "$dir/sound-fifo.json" '.first_sound != null and .first_sound - $s > -0.05 and .first_sound - $s < 1' --argjson s "$f_fifo_alarm_at"
    verdict zone-fifo "refused $(ms "$refused_at - $f_fifo_at") ms after the FIFO replaced the zone file (\"a FIFO, not a regular file\"), the zone kept; an alarm set after it rang +$(ms "$(jv .first_sound "$dir/sound-fifo.json") - $f_fifo_alarm_at") ms after its time"

    # alarmd-timer stopped: the pings stop, systemd restarts alarmd, the alarm due meanwhile rings.
    n0=$(sed -n 's/^NRestarts=//p' "$dir/before.txt") n1=$(sed -n 's/^NRestarts=//p' "$dir/after.txt")
    pid0=$(sed -n 's/^MainPID=//p' "$dir/before.txt") pid1=$(sed -n 's/^MainPID=//p' "$dir/after.txt")
    tid=$(sed -n 's/^stopped //p' "$dir/freeze.txt")
    timeout_at=$(journal_time "$(grep -m1 'Watchdog timeout' "$journal")")
    held_at=$(journal_time "$(grep -m1 'Watchdog not pinged: a part has not answered its check watchdog.part="engine and wall-clock timer"' "$journal")")
    expect "the timer thread was not stopped ($(head -c 200 "$dir/freeze.txt" | tr '\n' ' '))" test -n "$tid"
    expect "no watchdog ping in the 16 s before the stop (the last $f_ping_age s before)" awk "BEGIN { exit !($f_ping_age < 16) }"
    expect "systemd's journal has no watchdog timeout" test "$timeout_at" != 0
    expect "systemd's watchdog acted $(calc "$timeout_at - $f_frozen") s after the stop, not 30-45 s" \
        awk "BEGIN { d = $timeout_at - $f_frozen; exit !(d > 29 && d < 47) }"
    expect "alarmd did not log the check it waited for (watchdog.part=\"engine and wall-clock timer\") before the timeout" \
        awk "BEGIN { exit !($held_at > $f_frozen && $held_at < $timeout_at) }"
    expect "systemd did not restart alarmd (NRestarts $n0 -> $n1)" test "$n1" = $((n0 + 1))
    expect "the same process still runs ($pid0 -> $pid1)" test "$pid0" != "$pid1"
    expect "not active/running after the restart ($(tr '\n' ' ' <"$dir/after.txt"))" grep -q 'SubState=running' "$dir/after.txt"
    analyse sound sound-late "$dir/audio" --after "$(calc "$f_late_alarm_at - 0.5")" --before "$f_press_late"
    analyse sound sound-after "$dir/audio" --after "$(calc "$f_after_alarm_at - 1")" --before "$f_press_after"
    jexpect "the alarm due while the timer was stopped rang before the restart or not within 20 s after it (first sound $(jv .first_sound "$dir/sound-late.json"), timeout $timeout_at)" \
        "$dir/sound-late.json" '.first_sound != null and .first_sound > $t and .first_sound - $t < 20' --argjson t "$timeout_at"
    jexpect "it is not alerting after the restart ($(jv .alarm.state "$dir/show-late.json"))" "$dir/show-late.json" '.alarm.state == "alerting"'
    jexpect "an alarm set after the restart did not ring within 1 s of its time (first sound $(jv .first_sound "$dir/sound-after.json"), due $f_after_alarm_at)" \
        "$dir/sound-after.json" '.first_sound != null and .first_sound - $s > -0.05 and .first_sound - $s < 1' --argjson s "$f_after_alarm_at"
    verdict watchdog "alarmd-timer (tid $tid) stopped $f_ping_age s after a ping; alarmd held its pings back after $(calc "$held_at - $f_frozen" | cut -d. -f1) s; systemd's watchdog timeout $(calc "$timeout_at - $f_frozen" | cut -d. -f1) s after the stop, restarted (pid $pid0 -> $pid1); the alarm due meanwhile rang $(calc "$(jv .first_sound "$dir/sound-late.json") - $f_late_alarm_at" | cut -d. -f1) s late, $(calc "$(jv .first_sound "$dir/sound-late.json") - $timeout_at" | cut -d. -f1) s after the timeout; the next +$(ms "$(jv .first_sound "$dir/sound-after.json") - $f_after_alarm_at") ms"
}

# --- power-off ----------------------------------------------------------------------------------------

judge_power_off() {
    local dir=$1 id
    id=$(sed -n 's/^@@HARDKILL \([0-9A-F-]*\).*/\1/p' "$results/serial-main.log" | tail -n 1)
    expect "the main boot never reached the power-off" test -n "$id"
    expect "the host did not kill QEMU" test -f "$results/hardkill.txt"
    expect "the killed boot's journal shows a clean stop of alarmd" bash -c "! grep -q 'Stopping alarmd.service' '$dir/alarmd-journal-before-the-kill.txt'"
    jexpect "the alarm scheduled right before the power-off is gone ($id)" "$dir/list.json" \
        'any(.alarms[]; .id == $id and .title == "Survives VM" and .state == "scheduled")' --arg id "$id"
    verdict power-off "alarm $id scheduled, QEMU killed with SIGKILL on the serial marker, the alarm listed after the next boot"
}

# --- rtc, restored, phone-time, ntp: where the clock's time came from ------------------------------

# (b) The main boot: the machine's RTC set the clock at boot, so the source is `rtc`.
judge_rtc() {
    local dir=$1
    load_facts "$dir"
    expect "rtc0 did not set the clock at boot ($(tr '\n' ' ' <"$dir/rtc0.txt" 2>/dev/null))" test "$(sed -n 2p "$dir/rtc0.txt")" = 1
    jexpect "the time source is $(jv .timeSource "$dir/status.json"), not rtc" "$dir/status.json" '.timeSource == "rtc"'
    expect "alarmd selftest --only rtc exited $f_selftest_rtc_status ($(tr '\n' ' ' <"$dir/selftest-rtc.txt" | head -c 300))" [ "$f_selftest_rtc_status" = 0 ]
    expect "the self-test did not pass the RTC ($(grep -m1 'rtc' "$dir/selftest-rtc.txt"))" grep -q '^PASS  rtc: rtc0 agrees with the clock' "$dir/selftest-rtc.txt"
    verdict rtc "$(sed -n 1p "$dir/rtc0.txt") set the clock at boot; source $(jv .timeSource "$dir/status.json"); $(grep -m1 '^PASS  rtc' "$dir/selftest-rtc.txt")"
}

# (a) The boot after the cut, with no RTC and no network: `restored` from timesyncd's file, the
# time blinking on the LCD with "Clock unverified", and an alarm ringing on the clock's guess.
judge_restored() {
    local dir=$1 s behind t frame shown=0 blank=0 warned=0
    load_facts "$dir"
    s=$f_alarm_at
    behind=$(calc "$f_host_time - $f_guest_time")
    expect "the guest has an RTC ($(tr '\n' ' ' <"$dir/rtc-devices.txt"))" test ! -s "$dir/rtc-devices.txt"
    expect "the clock is not behind the host's by the cut's 2 h or more ($(calc "$behind / 60") min)" \
        awk "BEGIN { exit !($behind >= 7200 && $behind < 7200 + 900) }"
    expect "timesyncd did not restore the saved clock ($(grep -m1 -i 'clock' "$dir/timesyncd-journal.txt" | head -c 200))" \
        grep -q 'restoring from recorded timestamp' "$dir/timesyncd-journal.txt"
    jexpect "the time source is $(jv .timeSource "$dir/status.json"), not restored" "$dir/status.json" '.timeSource == "restored"'
    jexpect "confirmed at $(jv .timeConfirmedAt "$dir/status.json"), not when the clock was saved ($f_saved_at)" "$dir/status.json" \
        '.timeConfirmedAt != null and (.timeConfirmedAt - $saved | fabs) < 2' --argjson saved "$f_saved_at"
    jexpect "the clock is not trusted" "$dir/status.json" '.clockTrusted == true'
    expect "the journal does not say the time is not confirmed" grep -q 'Clock time not confirmed: restored' "$dir/alarmd-journal.txt"
    # The qemu profile says the board has an RTC, and this boot hides it: the self-test fails it
    # with a hint, as on a Pi whose RTC's driver did not register.
    expect "the self-test did not fail the missing RTC with a hint ($(grep -m1 'rtc:' "$dir/selftest-rtc.txt"))" \
        grep -q '^FAIL  rtc: no RTC (/sys/class/rtc/rtc0), though the board has one' "$dir/selftest-rtc.txt"
    expect "the self-test's missing RTC has no hint" grep -q 'hint: `dmesg | grep -i rtc`' "$dir/selftest-rtc.txt"
    # The idle screen, decoded half a second into each of four seconds.
    for t in 0 1 2 3; do
        frame=$(calc "${f_idle_from%.*} + 1.5 + $t")
        lcd "$dir" "lcd-idle-$t" afterkill --at "$frame"
        jq -e '.text[0] | test("[0-9]{1,2}:[0-9]{2}")' "$dir/lcd-idle-$t.json" >/dev/null 2>&1 && shown=$((shown + 1))
        jq -e '.text[0] | test("^ *$")' "$dir/lcd-idle-$t.json" >/dev/null 2>&1 && blank=$((blank + 1))
        jq -e '.text | join(" ") | test("unverified")' "$dir/lcd-idle-$t.json" >/dev/null 2>&1 && warned=$((warned + 1))
    done
    expect "the LCD's time does not blink (shown in $shown of 4 seconds, blank in $blank)" test $shown = 2 -a $blank = 2
    expect "the LCD never says the clock is unverified ($(jq -c .text "$dir/lcd-idle-0.json" "$dir/lcd-idle-1.json" 2>/dev/null | tr '\n' ' '))" test $warned -ge 1
    analyse sound sound "$dir/audio" --after "$(calc "$s - 1")" --before "$f_press_stop"
    analyse led led "$dir/led.txt" --after "$(calc "$s - 1")" --before "$f_press_stop"
    jexpect "not alerting at its time ($(jv .alarm.state "$dir/show-ringing.json"))" "$dir/show-ringing.json" '.alarm.state == "alerting"'
    jexpect "no sound within 1 s of its time on the restored clock (first sound $(jv .first_sound "$dir/sound.json"), due $s)" "$dir/sound.json" \
        '.first_sound != null and .first_sound - $s > -0.05 and .first_sound - $s < 1' --argjson s "$s"
    jexpect "the LED did not go high within 1 s ($(jv .first_high "$dir/led.json"))" "$dir/led.json" \
        '.first_high != null and .first_high - $s > -0.05 and .first_high - $s < 1' --argjson s "$s"
    verdict restored "no RTC, clock $(calc "$behind / 60") min behind the host's, source $(jv .timeSource "$dir/status.json") (saved $(date -u -d "@$f_saved_at" +%H:%M:%S)), LCD time shown $shown/blank $blank of 4 s, \"unverified\" in $warned; rang +$(ms "$(jv .first_sound "$dir/sound.json") - $s") ms"
}

# (d) The page set the clock from the host's time: it moved, the source is `phone`, the alarm it
# passed within the grace rang at once, the one beyond was missed, and the history says why.
judge_phone_time() {
    local dir=$1 after
    load_facts "$dir"
    after=$(calc "$f_host_after - $f_guest_after")
    expect "the page did not set the time ($(head -n 1 "$dir/page-time.txt"))" grep -q '^HTTP/1.1 200' "$dir/page-time.txt"
    expect "the clock is $after s from the host's after the page set it" awk "BEGIN { exit !($after > -1 && $after < 1) }"
    jexpect "the time source is $(jv .timeSource "$dir/status.json"), not phone" "$dir/status.json" '.timeSource == "phone"'
    jexpect "the alarm the clock passed 10 min ago is $(jv .alarm.state "$dir/show-within.json"), not alerting" "$dir/show-within.json" '.alarm.state == "alerting"'
    jexpect "the history has no late ring for the clock being set ($(jv -c --arg id "$f_within_id" '[.entries[] | select(.id == $id)]' "$dir/history.json"))" "$dir/history.json" \
        '[.entries[] | select(.id == $id and .kind == "rang" and .reason == "clockSet" and .lateBySeconds > 590 and .lateBySeconds < 660)] | length == 1' --arg id "$f_within_id"
    jexpect "the history has no miss for the clock being set ($(jv -c --arg id "$f_beyond_id" '[.entries[] | select(.id == $id)]' "$dir/history.json"))" "$dir/history.json" \
        '[.entries[] | select(.id == $id and .kind == "missed" and .reason == "clockSet")] | length == 1' --arg id "$f_beyond_id"
    analyse sound sound "$dir/audio" --after "$f_set_at"
    jexpect "no sound after the clock was set" "$dir/sound.json" '.first_sound != null'
    verdict phone-time "page answered \"$(head -n 1 "$dir/page-time.txt" | tr -d '\r')\", clock within $after s of the host's, source $(jv .timeSource "$dir/status.json"); 10 min late: $(jv .alarm.state "$dir/show-within.json"), history rang late $(jv --arg id "$f_within_id" '[.entries[] | select(.id == $id and .kind == "rang")][0].lateBySeconds | floor' "$dir/history.json") s; 50 min late: missed (clockSet)"
}

# (c) NTP on the network: synchronised, the source `ntp`; a phone's time 10 min off is refused.
judge_ntp() {
    local dir=$1 before after
    load_facts "$dir"
    before=$(calc "$f_host_before - $f_guest_before")
    after=$(calc "$f_host_after - $f_guest_after")
    expect "chronyd on the host did not run ($(tail -n 2 "$results/chronyd.log" 2>/dev/null | tr '\n' ' '))" grep -q 'chronyd version' "$results/chronyd.log"
    expect "timesyncd did not synchronise with 10.0.2.2 ($(tail -n 2 "$dir/timesyncd-journal.txt" | tr '\n' ' ' | head -c 300))" \
        grep -q 'Contacted time server 10.0.2.2' "$dir/timesyncd-journal.txt"
    jexpect "the time source is $(jv .timeSource "$dir/status.json"), not ntp" "$dir/status.json" '.timeSource == "ntp"'
    expect "the clock is $before s from the host's after NTP" awk "BEGIN { exit !($before > -1 && $before < 1) }"
    expect "a phone's time 10 min off was not refused with 409 ($(head -n 1 "$dir/page-time-refused.txt"))" grep -q '^HTTP/1.1 409' "$dir/page-time-refused.txt"
    expect "the refusal does not say NTP wins ($(tail -n 1 "$dir/page-time-refused.txt" | head -c 200))" grep -q 'NTP' "$dir/page-time-refused.txt"
    expect "the clock moved on a refused time ($after s from the host's)" awk "BEGIN { exit !($after > -1 && $after < 1) }"
    verdict ntp "synchronised $(calc "$f_synchronised_seen - $f_network_up") s after the network came up, source $(jv .timeSource "$dir/status.json"), clock within $before s of the host's; a phone 10 min off: \"$(head -n 1 "$dir/page-time-refused.txt" | tr -d '\r')\""
}

# --- pi4 -------------------------------------------------------------------------------------------

# The afterkill guest shaped like a Raspberry Pi 4 (vm-test's shape_like_a_pi4), alarmd restarted
# with board = "auto": the card's control set to the household's volume (the default -6 dB) as
# alarmd opens it, then the page's volume -20 dB. The volume control stands in for the Pi's and
# scales nothing, so the honest checks are: the control holds the page's -20 dB while the alarm
# rings, and the captured tone is at its own full level (it peaks at 0.9, -0.9 dBFS), with no
# software attenuation on top (-20.9 dBFS with the page's volume applied in software as well).
judge_pi4() {
    local dir=$1 s p
    load_facts "$dir"
    s=$f_alarm_at p=$f_press_stop
    expect "the device tree's model is not a Pi 4's ($(cat "$dir/model.txt" 2>/dev/null))" grep -qx 'Raspberry Pi 4 Model B Rev 1.5' "$dir/model.txt"
    expect "no GPIO chip labelled pinctrl-bcm2711 ($(tr '\n' ' ' <"$dir/gpiodetect.txt" 2>/dev/null))" grep -q '\[pinctrl-bcm2711\] (58 lines)' "$dir/gpiodetect.txt"
    expect "no sound card with the id Headphones ($(tr '\n' ' ' <"$dir/cards.txt" 2>/dev/null))" grep -q '\[Headphones *\]' "$dir/cards.txt"
    expect "i2c-stub is not i2c-1 ($(tr '\t\n' '  ' <"$dir/i2c-adapters.txt" 2>/dev/null))" grep -Eq '^i2c-1[[:space:]].*SMBus stub' "$dir/i2c-adapters.txt"
    jexpect "the volume control was not added: $(head -c 200 "$dir/add-volume.json" 2>/dev/null)" "$dir/add-volume.json" '.control == "PCM Playback Volume"'
    jexpect "board = \"auto\" did not pick rpi4b ($(jv .board "$dir/status.json"))" "$dir/status.json" '.board == "rpi4b"'
    jexpect "not every part ok: $(jv -c '[.parts[] | "\(.name) \(.state)"]' "$dir/status.json")" "$dir/status.json" \
        '(.parts | length) >= 4 and all(.parts[]; .state == "ok")'
    expect "the profile loaded with warnings ($(grep -m1 'Board profile' "$dir/alarmd-journal.txt" | head -c 300))" \
        bash -c "! grep -q 'Board profile' '$dir/alarmd-journal.txt'"
    expect "alarmd did not find the card's volume control ($(grep -m1 -i 'volume' "$dir/alarmd-journal.txt" | head -c 300))" \
        bash -c "grep \"Alarm volume is set on the sound card's control\" '$dir/alarmd-journal.txt' | grep -q 'hw:CARD=Headphones'"
    expect "alarmd set the volume in software ($(grep -m1 -E 'volume control (cannot|not)' "$dir/alarmd-journal.txt" | head -c 300))" \
        bash -c "! grep -Eq 'volume control (cannot be set|not available)' '$dir/alarmd-journal.txt'"
    expect "the page's volume was refused ($(head -n 1 "$dir/page-settings.txt" 2>/dev/null))" grep -q '^HTTP/1.1 200' "$dir/page-settings.txt"
    jexpect "the control was not set to the household's volume, -6 dB, at start ($(jv .db "$dir/mixer-before.json"))" "$dir/mixer-before.json" '.db == -6'
    jexpect "the card's PCM control is not at the page's -20 dB while ringing ($(jv -c . "$dir/mixer-ringing.json"))" "$dir/mixer-ringing.json" \
        '.db > -20.5 and .db < -19.5'
    analyse sound sound-pi4 "$dir/audio" --after "$(calc "$s - 1")" --before "$p"
    analyse led led-pi4 "$dir/led.txt" --after "$(calc "$s - 1")" --before "$p"
    lcd "$dir" lcd-pi4 afterkill --adapter 1 --at "$(calc "$s + 1.4")"
    jexpect "not alerting at its time ($(jv .alarm.state "$dir/show-ringing.json"))" "$dir/show-ringing.json" '.alarm.state == "alerting"'
    jexpect "no sound within 1 s of its time on plughw:CARD=Headphones,DEV=0 (first sound $(jv .first_sound "$dir/sound-pi4.json"), due $s)" "$dir/sound-pi4.json" \
        '.first_sound != null and .first_sound - $s > -0.05 and .first_sound - $s < 1' --argjson s "$s"
    jexpect "not the 2,000 Hz tone ($(jv .frequency_hz "$dir/sound-pi4.json") Hz)" "$dir/sound-pi4.json" '.frequency_hz > 1950 and .frequency_hz < 2050'
    jexpect "the samples are attenuated in software on top of the card's control ($(jv .peak_dbfs "$dir/sound-pi4.json") dBFS peak, the tone's own is -0.9)" "$dir/sound-pi4.json" \
        '.peak_dbfs > -3 and .peak_dbfs <= 0'
    jexpect "the LED on GPIO22 of pinctrl-bcm2711 did not go high within 1 s ($(jv .first_high "$dir/led-pi4.json"))" "$dir/led-pi4.json" \
        '.first_high != null and .first_high - $s > -0.05 and .first_high - $s < 1' --argjson s "$s"
    jexpect "the LCD on i2c-1 does not show the alert ($(jv -c .text "$dir/lcd-pi4.json"))" "$dir/lcd-pi4.json" \
        '(.text[0] | contains("Pi VM")) and (.text[1] | contains("Stop"))'
    expect "alarmd selftest beside the service exited $f_selftest_status ($(tr '\n' ' ' <"$dir/selftest.txt" 2>/dev/null | head -c 400))" [ "$f_selftest_status" = 0 ]
    expect "the service's self-test did not pass sound with the volume control ($(grep -m1 'sound' "$dir/selftest.txt"))" \
        grep -Eq '^PASS  sound: .*volume control' "$dir/selftest.txt"
    expect "the self-test was not run by the service ($(head -n 2 "$dir/selftest.txt" | tr '\n' ' '))" grep -q 'The running alarmd' "$dir/selftest.txt"
    lcd "$dir" lcd-before-selftest afterkill --adapter 1 --at "$(calc "$f_selftest_before - 0.2")"
    lcd "$dir" lcd-after-selftest afterkill --adapter 1 --at "$(calc "$f_selftest_after + 1.2")"
    # The clock's screen before and after, digits aside (a minute may turn meanwhile).
    jexpect "the LCD is not the clock's screen whole after the self-test ($(jv -c .text "$dir/lcd-before-selftest.json") before, $(jv -c .text "$dir/lcd-after-selftest.json") after)" \
        "$dir/lcd-after-selftest.json" \
        '(.text | map(gsub("[0-9]"; "#"))) == ($before[0].text | map(gsub("[0-9]"; "#"))) and (.text | join("") | test("self-test") | not) and ($before[0].text[0] | test("[^ ]"))' \
        --slurpfile before "$dir/lcd-before-selftest.json"
    verdict pi4 "board $(jv .board "$dir/status.json"), selftest beside the service exit $f_selftest_status, LCD after it \"$(jv '.text | join(" / ")' "$dir/lcd-after-selftest.json")\", control PCM $(jv .db "$dir/mixer-before.json") -> $(jv .db "$dir/mixer-ringing.json") dB, sound +$(ms "$(jv .first_sound "$dir/sound-pi4.json") - $s") ms at $(jv .peak_dbfs "$dir/sound-pi4.json") dBFS peak, LED +$(ms "$(jv .first_high "$dir/led-pi4.json") - $s") ms, LCD \"$(jv '.text | join(" / ")' "$dir/lcd-pi4.json")\""
}

# --- no-sound --------------------------------------------------------------------------------------

judge_no_sound() {
    local dir=$1 s p start
    load_facts "$dir"
    s=$f_alarm_at p=$f_press_stop
    start=$(head -n 1 "$dir/led.txt" | awk '{ print $1 }')
    analyse led led-idle "$dir/led.txt" --after "$start" --before "$(calc "$s - 0.5")"
    analyse led led-alert "$dir/led.txt" --after "$(calc "$s - 0.5")" --before "$p"
    analyse led led-after "$dir/led.txt" --after "$(calc "$p + 0.5")"
    lcd "$dir" lcd side --at "$(calc "$s + 1")"
    lcd "$dir" lcd-all side
    expect "a sound card is present ($(tr '\n' ' ' <"$dir/cards.txt"))" bash -c "! grep -q Loopback '$dir/cards.txt'"
    jexpect "status at boot does not name the sound fault ($(jv -c '.parts[] | select(.name == "sound")' "$dir/status-at-boot.json"))" "$dir/status-at-boot.json" \
        'any(.parts[]; .name == "sound" and .state == "fault" and ((.detail // "") | length > 0))'
    # IndicatorPolicy: a part that does not work (no sound) shows as 3 flashes, then dark.
    jexpect "the idle LED does not show the fault before the alarm ($(jv -c '[.pattern, .transitions]' "$dir/led-idle.json"))" "$dir/led-idle.json" '.transitions >= 2'
    jexpect "not alerting ($(jv .alarm.state "$dir/show.json"))" "$dir/show.json" '.alarm.state == "alerting"'
    jexpect "the LED did not alert ($(jv -c '[.first_high, .pattern, .period_ms]' "$dir/led-alert.json"))" "$dir/led-alert.json" \
        '.first_high != null and .first_high - $s < 1 and .pattern == "blink" and .period_ms > 400 and .period_ms < 600' --argjson s "$s"
    jexpect "the LCD does not show the alert ($(jv -c .text "$dir/lcd.json"))" "$dir/lcd.json" '(.text[0] | contains("Quiet VM")) and (.text[1] | contains("Stop"))'
    jexpect "the LCD does not name the fault while it rings" "$dir/lcd-all.json" \
        '[.screens[] | select(.at >= $s and .at <= $p) | .text[0]] | join(" ") | test("No sound"; "i")' --argjson s "$s" --argjson p "$p"
    jexpect "the LCD does not show the clock and the fault after STOP ($(jv -c .text "$dir/lcd-all.json"))" "$dir/lcd-all.json" \
        '(.text[0] | test("[0-9]{2}:[0-9]{2}")) and (.text[1] | contains("No sound"))'
    jexpect "status does not name the sound fault while it rings" "$dir/status-alerting.json" \
        'any(.parts[]; .name == "sound" and .state == "fault" and ((.detail // "") | length > 0))'
    # After it, the fault's pattern (3 short flashes, then dark), not the alert's 2 Hz blink.
    jexpect "the LED kept alerting after STOP ($(jv -c '[.pattern, .period_ms, .high_fraction]' "$dir/led-after.json"))" "$dir/led-after.json" \
        '.high_fraction < 0.35'
    verdict no-sound "status while ringing: $(jv '.parts[] | select(.name == "sound") | "\(.state): \(.detail)"' "$dir/status-alerting.json"); LED $(jv -c '[.pattern, .period_ms]' "$dir/led-alert.json"); LCD \"$(jv '.text | join(" / ")' "$dir/lcd.json")\""
}

# --- libgpiod 2 ------------------------------------------------------------------------------------

judge_libgpiod2() {
    local dir=$1 pre=$results/side/gpiod2-preflight
    expect "alarmd does not run on libgpiod.so.3 ($(awk '{ print $6 }' "$pre/libgpiod-mapped.txt" 2>/dev/null | sort -u | tr '\n' ' '))" \
        grep -q 'libgpiod.so.3' "$pre/libgpiod-mapped.txt"
    if [ "${arch:-amd64}" = amd64 ]; then
        expect "/usr/bin/alarmd is not the libgpiod-2 build" grep -q alarmd-gpiod2 "$pre/bind-mount.txt"
    else
        # arm64: the package built for trixie, installed as it is on a trixie guest.
        expect "the side guest is not trixie ($(sed -n 's/^VERSION_CODENAME=//p' "$pre/os-release.txt" 2>/dev/null))" \
            grep -qx 'VERSION_CODENAME=trixie' "$pre/os-release.txt"
        expect "the installed alarmd is not the arm64 package ($(cat "$pre/package.txt" 2>/dev/null))" \
            grep -q '^alarmd .* arm64$' "$pre/package.txt"
        # dpkg --verify lists the package's files that differ from its md5sums (the harness's
        # /etc/alarmd/alarmd.toml does); /usr/bin/alarmd must not be one, nor a mount.
        expect "/usr/bin/alarmd is not the installed package's ($(grep -h /usr/bin/alarmd "$pre/bind-mount.txt" "$pre/package-verify.txt" 2>/dev/null | head -c 300))" \
            bash -c "[ -f '$pre/package-verify.txt' ] && ! grep -q ' /usr/bin/alarmd\$' '$pre/package-verify.txt' && ! grep -q /usr/bin/alarmd '$pre/bind-mount.txt'"
    fi
    expect "not active/running under the unit" grep -q '^SubState=running' "$pre/systemctl-show.txt"
    jexpect "not every part ok: $(jv -c '[.parts[] | "\(.name) \(.state)"]' "$pre/status.json")" "$pre/status.json" 'all(.parts[]; .state == "ok")'
    judge_alert_part "$dir" side
    local kept=("${problems[@]}")
    problems=()
    judge_snooze_part "$dir" side
    problems=("${kept[@]}" "${problems[@]}")
    local which="the libgpiod-2 build bind-mounted"
    [ "${arch:-amd64}" = amd64 ] || which="the trixie package $(cut -d' ' -f2 "$pre/package.txt" 2>/dev/null)"
    verdict libgpiod2 "$which, libgpiod.so.3; $ring_summary; $snooze_summary"
}

# --- Dispatch ----------------------------------------------------------------------------------------

judged=0
# Judges the episodes the guests handed over since the last call ($results/ready).
judge_ready() {
    local count role episode
    [ -f "$results/ready" ] || return 0
    count=$(wc -l <"$results/ready")
    while [ "$judged" -lt "$count" ]; do
        judged=$((judged + 1))
        read -r role episode <<<"$(sed -n "${judged}p" "$results/ready")"
        case "$role/$episode" in
        main/boot) judge_boot "$results/main/boot"; judge_rtc "$results/main/boot" ;;
        main/ring) judge_ring "$results/main/ring" ;;
        main/timer) judge_timer "$results/main/timer" ;;
        main/intent) judge_intent "$results/main/intent" ;;
        main/restart) judge_restart "$results/main/restart" ;;
        main/clock) judge_clock "$results/main/clock" ;;
        main/corrupt-sound) judge_corrupt_sound "$results/main/corrupt-sound" ;;
        main/household-sound) judge_household_sound "$results/main/household-sound" ;;
        main/mqtt) judge_mqtt "$results/main/mqtt" ;;
        main/sunrise) judge_sunrise "$results/main/sunrise" ;;
        main/measurements) judge_measurements "$results/main/measurements" ;;
        main/watchdog) judge_watchdog "$results/main/watchdog" ;;
        afterkill/power-off) judge_power_off "$results/afterkill/power-off" ;;
        afterkill/restored) judge_restored "$results/afterkill/restored" ;;
        afterkill/phone-time) judge_phone_time "$results/afterkill/phone-time" ;;
        afterkill/ntp) judge_ntp "$results/afterkill/ntp" ;;
        afterkill/pi4) judge_pi4 "$results/afterkill/pi4" ;;
        side/no-sound) judge_no_sound "$results/side/no-sound" ;;
        side/ring) judge_libgpiod2 "$results/side/ring" ;;
        esac
    done
}
