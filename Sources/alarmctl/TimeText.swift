import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials

/// How alarmctl reads and writes times and durations.
enum TimeText {
    /// The system zone (`TZ`, else `/etc/localtime`), which is also the daemon's on the device;
    /// UTC if it cannot be read.
    static func localZone() -> TimeZoneRules {
        (try? SystemTimeZoneProvider().currentZone()) ?? .utc
    }

    // MARK: - Reading

    /// A duration such as `9m`, `90s`, `1h30m` or `500ms`, more than zero and at most a year.
    static func duration(_ text: String, option: String) throws -> TimeInterval {
        guard let duration = DurationText.parse(text), duration > .zero else {
            throw CommandFailure.usage("invalid duration \"\(text)\" for \(option): expected a length such as 9m, 90s or 1h30m")
        }
        let seconds = duration.timeInterval
        guard seconds <= AlarmDefinition.maximumCountdown else {
            throw CommandFailure.usage("invalid duration \"\(text)\" for \(option): at most \(Int(AlarmDefinition.maximumCountdown / 86_400)) days")
        }
        return seconds
    }

    // MARK: - Writing

    /// `Sun 2026-11-22 07:00` in `zone`.
    static func dayAndTime(_ date: Date, in zone: TimeZoneRules) -> String {
        let local = zone.localDateTime(at: date)
        return "\(day(local.date)) \(hoursAndMinutes(local.time))"
    }

    /// `Sun 2026-11-22`.
    static func day(_ date: CivilDate) -> String {
        "\(weekdayAbbreviation(date.weekday).capitalized) \(date)"
    }

    /// `07:00:05` in `zone`.
    static func timeOfDay(_ date: Date, in zone: TimeZoneRules) -> String {
        zone.localDateTime(at: date).time.description
    }

    /// `2026-11-22 07:00:05` in `zone`.
    static func dateAndTime(_ date: Date, in zone: TimeZoneRules) -> String {
        let local = zone.localDateTime(at: date)
        return "\(local.date) \(local.time)"
    }

    static func hoursAndMinutes(_ time: CivilTime) -> String {
        String(time.description.prefix(5))
    }

    /// Whole seconds, as durations are written: `4m59s`, `1h`, `0s`.
    static func duration(_ seconds: TimeInterval) -> String {
        let whole = seconds.isFinite ? Int64(max(0, seconds.rounded(.down))) : 0
        guard whole > 0 else { return "0s" }
        return DurationText.format(.seconds(whole))
    }

    /// A countdown length as given (sub-second parts kept): `9m`, `1m30s`, `500ms`.
    static func length(_ seconds: TimeInterval) -> String {
        DurationText.format(.milliseconds(Int64((seconds * 1000).rounded())))
    }

    // MARK: - Weekdays

    /// Monday first, as the repeat column and the JSON list them.
    static let weekOrder: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]

    static func weekdayAbbreviation(_ day: Locale.Weekday) -> String {
        switch day {
        case .monday: "mon"
        case .tuesday: "tue"
        case .wednesday: "wed"
        case .thursday: "thu"
        case .friday: "fri"
        case .saturday: "sat"
        case .sunday: "sun"
        @unknown default: "\(day)"
        }
    }

    /// `mon`...`sun`, Monday first, without repeats.
    static func weekdays(_ days: [Locale.Weekday]) -> [String] {
        let set = Set(days)
        return weekOrder.filter(set.contains).map(weekdayAbbreviation)
    }

    /// The REPEAT column: `once`, `daily`, `weekdays`, `weekends`, `mon,wed,fri`, or `timer`.
    static func repetition(of alarm: Alarm) -> String {
        switch alarm.schedule {
        case nil:
            return "timer"
        case .fixed:
            return "once"
        case .relative(let relative):
            guard case .weekly(let days) = relative.repeats else { return "once" }
            let names = weekdays(days)
            switch names {
            case weekdays(weekOrder): return "daily"
            case weekdays(Array(weekOrder.prefix(5))): return "weekdays"
            case weekdays([.saturday, .sunday]): return "weekends"
            default: return names.joined(separator: ",")
            }
        }
    }
}
