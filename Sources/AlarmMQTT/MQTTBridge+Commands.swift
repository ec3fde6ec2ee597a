import AlarmClient
import AlarmModel
import AlarmProtocol
import AlarmTime
import FoundationEssentials
import Logging

extension MQTTBridge {
    /// Why a command that was understood was not carried out.
    struct NotDone: Error, CustomStringConvertible {
        var description: String
    }

    /// A message on a topic the bridge subscribed to: Home Assistant starting, the clock's own
    /// discovery config, or a command.
    func received(_ message: MQTTClient.Message) async {
        if message.topic == discoveryTopic {
            discoveryReceived(message.payload)
            return
        }
        if message.topic == configuration.discoveryPrefix + "/status" {
            if message.text == "online", !message.retained {
                logger.info("Home Assistant started; announcing the clock again")
                forgetPublished()
                announceAll()
            }
            return
        }
        let topic = BridgeCommand.printable(message.topic, limit: 160)
        let command: BridgeCommand
        do {
            command = try BridgeCommand.parse(message, topics: topics)
        } catch {
            logger.warning("MQTT command refused; nothing changed", metadata: ["topic": "\(topic)", "reason": "\(error)"])
            return
        }
        do {
            let done = try await perform(command)
            logger.notice("MQTT command", metadata: ["topic": "\(topic)", "done": "\(done)"])
        } catch {
            logger.warning("MQTT command not carried out", metadata: ["topic": "\(topic)", "reason": "\(error)"])
        }
    }

    /// A config on the clock's discovery topic: the broker's retained one when the bridge
    /// connects (from an earlier run, perhaps naming alarms deleted since, or another user's
    /// before `alarms_of` changed), or the echo of its own. The alarms it names that the clock
    /// does not show are removed from Home Assistant once alarmd has been read.
    func discoveryReceived(_ payload: [UInt8]) {
        let prefix = ClockIdentity.uniquePrefix(machineID: machineID)
        guard let named = HomeAssistantDiscovery.announcedAlarms(in: payload, uniquePrefix: prefix, topics: topics) else { return }
        let known = Set(announcedAlarms.map(\.id))
        let unknown = named.filter { !known.contains($0.id) }
        guard !unknown.isEmpty else { return }
        announcedAlarms += unknown
        announceAll()
    }

    /// Carries out `command` as the clock's own buttons and settings would; returns what it did.
    private func perform(_ command: BridgeCommand) async throws -> String {
        switch command {
        case .stop, .snooze:
            let records = try await device.alarmRecords(all: true)
            // The alarm the clock presents, as its own STOP and SNOOZE act on it.
            if let ringing = AlertPresentationOrder.alerting(records).first {
                try await device.deviceAction(command == .stop ? .stop : .countdown, id: ringing.id, owner: ringing.owner.rawValue)
                return "\(command == .stop ? "stopped" : "snoozed") \(ringing.id)"
            }
            let snoozed = records.first { record in
                guard case .countdown(let countdown) = record.phase else { return false }
                return countdown.kind == .postAlert
            }
            guard command == .stop, let snoozed else { throw NotDone(description: command == .stop ? "nothing rings or is snoozed" : "nothing rings") }
            try await device.deviceAction(.stop, id: snoozed.id, owner: snoozed.owner.rawValue)
            return "ended the snooze of \(snoozed.id)"
        case .setVolume(let percent):
            let report = try await device.settings()
            var settings = report.settings
            settings.volumeDB = report.decibels(percent: Double(percent))
            _ = try await device.setSettings(settings)
            return "volume \(percent) %"
        case .setSnooze(let minutes):
            var settings = try await device.settings().settings
            settings.snoozeSeconds = Double(minutes * 60)
            _ = try await device.setSettings(settings)
            return "snooze \(minutes) min"
        case .setLight(let output):
            try await device.setLight(output: output)
            return output.map { "light on at \(Int(($0 * 100).rounded())) %" } ?? "light off"
        case .setEnabled(let id, let on):
            let record = try await shownAlarm(id)
            // `enable` also undoes a skip: only an alarm that is off is switched on.
            guard on != record.enabled else { return "\(id) already \(on ? "enabled" : "disabled")" }
            try await device.perform(on ? .enable : .disable, id: id, owner: record.owner.rawValue)
            return "\(on ? "enabled" : "disabled") \(id)"
        case .setSkip(let id, let on):
            let record = try await shownAlarm(id)
            // Undone with `enable`, which would also switch on an alarm that is off: only a skip is undone.
            guard on != (record.skippedDate != nil) else { return "\(id) \(on ? "already skips" : "skips no") day" }
            guard on || record.enabled else { throw NotDone(description: "the alarm is off: switching off its skip would switch it on") }
            try await device.perform(on ? .skip : .enable, id: id, owner: record.owner.rawValue)
            return "\(on ? "skips the next day of" : "no skip for") \(id)"
        }
    }

    /// One of the alarms the bridge shows; any other alarm is not the bridge's to touch.
    private func shownAlarm(_ id: UUID) async throws -> AlarmRecord {
        guard let owner = configuration.alarmOwner else { throw NotDone(description: "this bridge shows no alarms ([mqtt] alarms_of)") }
        guard let record = try await device.alarmRecords(all: true, id: id).first(where: { $0.owner.rawValue == owner }) else {
            throw NotDone(description: "not one of the alarms this bridge shows")
        }
        return record
    }

    // MARK: - Pre-alarm events

    /// Waits for the first pre-alarm moment to come (the household's offsets before each
    /// upcoming alarm). A moment that came while the bridge ran and was not sent (a change from
    /// alarmd re-planned at that very instant) is sent at once while it is on time; one from
    /// before the bridge started is not sent.
    func planPreAlarms() {
        preAlarmWait?.cancel()
        preAlarmWait = nil
        let now = clock.now
        let due = (states?.upcoming ?? []).flatMap { alarmAt in
            configuration.preAlarmOffsets.map { (offset: $0, alarmAt: alarmAt, at: alarmAt.addingTimeInterval(-$0.timeInterval)) }
        }
        .filter { moment in
            guard !sentPreAlarms.contains(PreAlarm(alarmAt: moment.alarmAt, offset: moment.offset)) else { return false }
            return moment.at > now || (moment.at > startedAt && Self.isOnTime(moment.at, alarmAt: moment.alarmAt, now: now))
        }
        .min { $0.at < $1.at }
        guard let due else { return }
        let (clock, feed) = (clock, feed)
        preAlarmWait = Task {
            // A clock set ends the sleep early: the moment is compared again.
            while !Task.isCancelled {
                guard (try? await clock.sleep(until: due.at)) != nil else { return }
                if clock.now >= due.at { break }
            }
            guard !Task.isCancelled else { return }
            feed?.yield(.preAlarm(offset: due.offset, alarmAt: due.alarmAt))
        }
    }

    /// Whether a pre-alarm moment `at` may still be sent at `now`: within a minute of it (a
    /// clock set far past it, an NTP step after a power cut, would send it at the wrong time)
    /// and before its alarm.
    static func isOnTime(_ at: Date, alarmAt: Date, now: Date) -> Bool {
        now >= at && now < at.addingTimeInterval(Self.preAlarmLateness) && now < alarmAt
    }

    /// How late a pre-alarm event may be sent.
    static var preAlarmLateness: TimeInterval { 60 }

    /// Sends the event for `offset` before the alarm at `alarmAt` if an alarm is still due then.
    func sendPreAlarm(offset: Duration, alarmAt: Date) {
        guard states?.upcoming.contains(alarmAt) == true else { return }
        sentPreAlarms = sentPreAlarms.filter { $0.alarmAt >= clock.now.addingTimeInterval(-86_400) }
        sentPreAlarms.insert(PreAlarm(alarmAt: alarmAt, offset: offset))
        guard Self.isOnTime(alarmAt.addingTimeInterval(-offset.timeInterval), alarmAt: alarmAt, now: clock.now) else {
            logger.info("Pre-alarm event not sent: its moment passed (the clock was set)", metadata: ["alarm": "\(alarmAt)"])
            planPreAlarms()
            return
        }
        let minutes = Int((offset.timeInterval / 60).rounded())
        if sendEvent(topics.preAlarmEvent, PreAlarmEvent(minutes: minutes, alarm: ISO8601.format(alarmAt, in: .utc))) {
            logger.info("Pre-alarm event sent", metadata: ["minutes": "\(minutes)", "alarm": "\(alarmAt)"])
        }
        planPreAlarms()
    }
}

/// A pre-alarm event's payload: Home Assistant's `event_type`, and which alarm, how long before.
struct PreAlarmEvent: Encodable {
    var event_type = "pre_alarm"
    var minutes: Int
    var alarm: String
}
