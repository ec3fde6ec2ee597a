import AlarmModel
import AlarmProtocol
import AlarmTime
import FoundationEssentials

/// What the bridge publishes of the clock, retained, one payload per state topic: computed from
/// what alarmd reports, so the same report always gives the same bytes and only a change is sent.
public struct ClockStates: Hashable, Sendable {
    /// What the clock is doing, in the order it wins when several alarms differ: `alerting`,
    /// `snoozed`, `countdown` (a timer, or an alarm counting down to its time), `paused`, `idle`.
    public enum Activity: String, CaseIterable, Sendable {
        case alerting, snoozed, countdown, paused, idle
    }

    public var activity: Activity
    /// When the next alarm rings; `nil`: none is set.
    public var nextAlarm: Date?
    /// When the scheduled alarms ring, soonest first (not published: the pre-alarm events are
    /// planned from it).
    public var upcoming: [Date] = []
    public var timeSource: TimeSource?
    /// The household's volume, in percent of the clock's volume scale.
    public var volumePercent: Int
    /// The snooze offered for new alarms, in whole minutes.
    public var snoozeMinutes: Int
    /// What the sunrise light shows (0 to 1); `nil` on a clock without one (or while unknown).
    public var light: Double?
    /// The alarms the bridge shows as switches (``BridgeConfiguration/alarmOwner``'s), oldest first.
    public var alarms: [AlarmSwitches] = []

    /// One alarm's switches: whether it is on, and whether it skips its next day (weekly ones).
    public struct AlarmSwitches: Hashable, Sendable {
        public var id: UUID
        public var title: String
        public var repeats: Bool
        public var enabled: Bool
        public var skipped: Bool

        init(_ record: AlarmRecord) {
            (id, title, enabled, skipped) = (record.id, record.definition.presentation.alert.title, record.enabled, record.skippedDate != nil)
            if case .relative(let relative)? = record.definition.schedule, case .weekly = relative.repeats { repeats = true } else { repeats = false }
        }

        var entity: HomeAssistantDiscovery.Alarm { .init(id: id, title: title, repeats: repeats) }
    }

    public init(activity: Activity, nextAlarm: Date?, timeSource: TimeSource?, volumePercent: Int, snoozeMinutes: Int) {
        (self.activity, self.nextAlarm, self.timeSource) = (activity, nextAlarm, timeSource)
        (self.volumePercent, self.snoozeMinutes) = (volumePercent, snoozeMinutes)
    }

    /// The clock as alarmd reports it: `status` (the device's scope), every client's alarms
    /// (only their phases count, except the alarms of `owner`, whose switches are published)
    /// and the household settings.
    public init(status: StatusReport, records: [AlarmRecord], settings: SettingsReport, alarmsOf owner: UInt32? = nil) {
        self.init(
            activity: Self.activity(of: records), nextAlarm: status.nextAlarm, timeSource: status.timeSource,
            volumePercent: settings.percent(decibels: settings.settings.volumeDB),
            snoozeMinutes: max(1, Int((settings.settings.snoozeSeconds / 60).rounded())))
        light = status.light
        // A daemon that does not list them has told the next one.
        upcoming = status.upcomingAlarms ?? (status.nextAlarm.map { [$0] } ?? [])
        if let owner {
            alarms = records.filter { $0.owner.rawValue == owner && $0.definition.schedule != nil }
                .sorted { ($0.createdAt, $0.sequenceNumber) < ($1.createdAt, $1.sequenceNumber) }
                .map(AlarmSwitches.init)
        }
    }

    public static func activity(of records: [AlarmRecord]) -> Activity {
        var found: Set<Activity> = []
        for record in records {
            switch record.phase {
            case .alerting: found.insert(.alerting)
            case .countdown(let countdown): found.insert(countdown.kind == .postAlert ? .snoozed : .countdown)
            case .paused: found.insert(.paused)
            case .scheduled: break
            }
        }
        return Activity.allCases.first(where: found.contains) ?? .idle
    }

    /// Topic and payload of every state, in a fixed order. A timestamp sensor takes ISO 8601
    /// with its offset, and `None` for no value (Home Assistant's "unknown").
    public func messages(_ topics: BridgeTopics) -> [(topic: String, payload: String)] {
        let next: String = nextAlarm.map { ISO8601.format($0, in: .utc) } ?? "None"
        var messages: [(topic: String, payload: String)] = [
            (topics.state, activity.rawValue), (topics.nextAlarm, next), (topics.timeSource, timeSource?.rawValue ?? "None"),
            (topics.volume, String(volumePercent)), (topics.snooze, String(snoozeMinutes)),
        ]
        if let light {
            // Home Assistant's JSON light: brightness 0-255.
            let brightness = Int((light * 255).rounded())
            messages.append((topics.light, brightness > 0 ? #"{"brightness":\#(brightness),"state":"ON"}"# : #"{"state":"OFF"}"#))
        }
        for alarm in alarms {
            let base = topics.alarm(alarm.id)
            messages.append((base + "/enabled", alarm.enabled ? "ON" : "OFF"))
            if alarm.repeats { messages.append((base + "/skip", alarm.skipped ? "ON" : "OFF")) }
        }
        return messages
    }
}
