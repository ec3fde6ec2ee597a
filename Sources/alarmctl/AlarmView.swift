import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTime
import FoundationEssentials

/// What alarmctl knows about one alarm: the AlarmKit view, its owner, and, when the daemon
/// reports it (`alarmRecords`), the full record with title and phase.
struct AlarmView: Sendable {
    var alarm: Alarm
    var owner: UInt32
    var record: AlarmRecord?

    init(alarm: Alarm, owner: UInt32) {
        self.alarm = alarm
        self.owner = owner
    }

    init(record: AlarmRecord) {
        alarm = record.alarm
        owner = record.owner.rawValue
        self.record = record
    }

    var id: Alarm.ID { alarm.id }
    var state: Alarm.State { alarm.state }
    /// Whether alarmd reports it disabled (`alarmctl disable`); `nil` when it does not report records.
    var enabled: Bool? { record?.enabled }
    /// The local day it skips (`alarmctl skip`), if any.
    var skippedDate: CivilDate? { record?.skippedDate }
    /// The STATE column: AlarmKit's state, or `disabled`, which AlarmKit has not.
    var stateText: String { enabled == false ? "disabled" : state.rawValue }
    var definition: AlarmDefinition? { record?.definition }
    var title: String? { record?.definition.presentation.alert.title }

    /// When it next alerts: the occurrence of a scheduled alarm, the end of a running countdown.
    /// `nil` while paused or alerting, or when it cannot be known (a relative alarm while the
    /// clock is untrusted; a countdown's end when the daemon does not report phases).
    func nextAlert(now: Date, zone: TimeZoneRules) -> Date? {
        if let record {
            switch record.phase {
            case .scheduled(.fixed(let date)?):
                return date
            case .scheduled(.day(let day)?):
                guard case .relative(let relative) = alarm.schedule,
                      let time = CivilTime(hour: relative.time.hour, minute: relative.time.minute)
                else { return nil }
                return zone.instant(for: LocalDateTime(date: day, time: time))
            case .scheduled(nil), .paused, .alerting:
                return nil
            case .countdown(let countdown):
                return countdown.fireDate
            }
        }
        guard alarm.state == .scheduled else { return nil }
        switch alarm.schedule {
        case .fixed(let date):
            return date
        case .relative(let relative):
            guard let time = CivilTime(hour: relative.time.hour, minute: relative.time.minute) else { return nil }
            var weekdays: Set<Locale.Weekday>?
            if case .weekly(let days) = relative.repeats { weekdays = Set(days) }
            return nextOccurrence(of: time, weekdays: weekdays, after: now, onOrAfter: nil, in: zone).instant
        case nil:
            return nil
        }
    }

    /// The time left of a running or paused countdown, in seconds; `nil` otherwise or unknown.
    func remaining(now: Date) -> TimeInterval? {
        switch record?.phase {
        case .countdown(let countdown)?: max(0, countdown.fireDate.timeIntervalSince(now))
        case .paused(let paused)?: max(0, paused.total - paused.previouslyElapsed)
        default: nil
        }
    }

    /// What the secondary (SNOOZE) button does: `snooze`, `custom` or `none`; `nil` if unknown.
    var secondary: String? {
        guard let alert = definition?.presentation.alert else { return nil }
        guard alert.secondaryButton != nil else { return "none" }
        return alert.secondaryButtonBehavior == .custom ? "custom" : "snooze"
    }

    /// `default` or the sound file's name; `nil` if unknown.
    var sound: String? {
        switch definition?.sound {
        case .default?: "default"
        case .named(let name)?: name
        case nil: nil
        }
    }
}
