import AlarmModel
import AlarmTime
import ArgumentParser
import FoundationEssentials

/// `alarmctl preview`: when an alarm would ring, computed with the system's tz rules.
///
/// The output format is a contract for scripts: one ISO 8601 instant with the zone's UTC offset
/// per line, e.g. `2026-03-29T03:30:00+02:00`; any bad input gives one line on stderr naming the
/// bad value and a non-zero exit.
struct Preview: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print when an alarm at a wall time would ring.",
        discussion: """
            Applies the device's policy: a time skipped by a daylight-saving change rings shifted \
            by the gap (02:30 in a 02:00-03:00 gap rings at 03:30); a time that occurs twice rings \
            once, at the first occurrence.
            """
    )

    @Option(name: .customLong("at"), help: ArgumentHelp("The wall time, HH:MM (24-hour) or 7:30am.", valueName: "HH:MM"))
    var time: String

    @Option(name: .customLong("repeat"), help: ArgumentHelp(
        "Repeat weekly on these days: English names or abbreviations (mon,tue or monday), ranges (mon-fri), weekdays, weekends or daily.",
        valueName: "DAYS"))
    var days: String?

    @Option(name: .customLong("time-zone"), help: ArgumentHelp("A tz database zone name. Default: the system zone.", valueName: "ZONE"))
    var timeZone: String?

    @Option(name: .customLong("after"), help: ArgumentHelp(
        "List instants strictly after this ISO 8601 instant with Z or an offset. Default: now.", valueName: "INSTANT"))
    var after: String?

    // Unconditional, so that "--count -3" reaches the range check and is named, not read as an option.
    @Option(name: .customLong("count"), parsing: .unconditional, help: "How many instants to list (repeating alarms only).")
    var count: Int = 1

    /// The largest --count accepted: a bound on work, far beyond any script's need.
    static let maximumCount = 100_000

    func run() throws {
        let time = try Self.parseTime(self.time)
        let weekdays = try days.map(Self.parseDays)
        guard count >= 1, count <= Self.maximumCount else {
            throw ValidationError("invalid count \(count): expected 1 to \(Self.maximumCount)")
        }
        let rules = try zoneRules()
        var instant = Date()
        if let after {
            guard let parsed = ISO8601.parse(after) else {
                throw ValidationError("invalid instant \"\(after)\": expected ISO 8601 such as 2026-03-29T01:00:00Z or 2026-03-29T03:00:00+02:00")
            }
            instant = parsed
        }
        var output = ""
        var fromDay: CivilDate?
        for _ in 0..<(weekdays == nil ? 1 : count) {
            let next = nextOccurrence(of: time, weekdays: weekdays, after: instant, onOrAfter: fromDay, in: rules)
            output += ISO8601.format(next.instant, in: rules) + "\n"
            instant = next.instant
            fromDay = next.day.adding(days: 1)
        }
        print(output, terminator: "")
    }

    private func zoneRules() throws -> TimeZoneRules {
        let database = TimeZoneDatabase()
        do {
            if let timeZone {
                return try database.rules(named: timeZone)
            }
            return try SystemTimeZoneProvider(database: database).currentZone()
        } catch {
            if timeZone != nil {
                // TimeZoneError's descriptions name the zone.
                throw ValidationError("\(error)")
            }
            throw ValidationError("the system time zone cannot be read: \(error)")
        }
    }

    /// Parses `HH:MM`, 24-hour, the hour with one digit or two (`7:30`, `07:30`), or a 12-hour
    /// time with `am` or `pm` (`7am`, `7:30pm`, `12am` is midnight).
    static func parseTime(_ text: String) throws -> CivilTime {
        var clock = Substring(text.lowercased())
        var afternoon: Bool?
        if clock.hasSuffix("am") || clock.hasSuffix("pm") {
            afternoon = clock.hasSuffix("pm")
            clock = clock.dropLast(2)
            while clock.last == " " { clock = clock.dropLast() }
        }
        var parts = clock.split(separator: ":", omittingEmptySubsequences: false)
        if afternoon != nil, parts.count == 1 { parts.append("00") }
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              var hour = Int(parts[0]), let minute = Int(parts[1])
        else { throw invalidTime(text) }
        if let afternoon {
            guard (1...12).contains(hour) else { throw invalidTime(text) }
            hour = hour % 12 + (afternoon ? 12 : 0)
        }
        guard let time = CivilTime(hour: hour, minute: minute) else { throw invalidTime(text) }
        return time
    }

    private static func invalidTime(_ text: String) -> ValidationError {
        ValidationError("invalid time \"\(text)\": expected HH:MM with hour 0-23 and minute 00-59, or 7:30am or 7pm")
    }

    /// Parses comma-separated days: English names or three-letter abbreviations (`mon,Tuesday`),
    /// ranges (`mon-fri`; `fri-mon` wraps over the weekend to Monday), and `weekdays`, `weekends`
    /// or `daily`, which `list` prints.
    static func parseDays(_ text: String) throws -> Set<Locale.Weekday> {
        var days: Set<Locale.Weekday> = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = trimmed(item).lowercased()
            if let group = dayGroups[name] {
                days.formUnion(group)
                continue
            }
            let ends = name.split(separator: "-", omittingEmptySubsequences: false).map { weekdayNames[trimmed($0)] }
            guard ends.count <= 2, let first = ends.first ?? nil, let last = ends.last ?? nil,
                  var index = TimeText.weekOrder.firstIndex(of: first)
            else {
                throw ValidationError(
                    "unknown day \"\(item)\": expected English day names or abbreviations such as mon,tue or monday, "
                        + "ranges such as mon-fri, or weekdays, weekends or daily")
            }
            days.insert(first)
            while TimeText.weekOrder[index] != last {
                index = (index + 1) % TimeText.weekOrder.count
                days.insert(TimeText.weekOrder[index])
            }
        }
        return days
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }

    private static let dayGroups: [String: [Locale.Weekday]] = [
        "daily": TimeText.weekOrder, "weekdays": Array(TimeText.weekOrder.prefix(5)), "weekends": [.saturday, .sunday],
    ]

    private static let weekdayNames: [String: Locale.Weekday] = {
        let days: [(String, Locale.Weekday)] = [
            ("monday", .monday), ("tuesday", .tuesday), ("wednesday", .wednesday), ("thursday", .thursday),
            ("friday", .friday), ("saturday", .saturday), ("sunday", .sunday),
        ]
        var names: [String: Locale.Weekday] = [:]
        for (name, day) in days {
            names[name] = day
            names[String(name.prefix(3))] = day
        }
        return names
    }()
}
