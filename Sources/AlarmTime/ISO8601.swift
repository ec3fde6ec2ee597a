import AlarmModel
import FoundationEssentials

/// ISO 8601 / RFC 3339 timestamps for scripts and logs, always with an explicit numeric offset.
public enum ISO8601 {
    /// Formats `instant` as local time in `rules` with its offset, e.g. "2026-03-29T03:30:00+02:00".
    ///
    /// Fractions of a second are dropped (floored). The offset is `±HH:MM`, or `±HH:MM:SS` when it has
    /// seconds (local mean time before 1900 in many zones); UTC is "+00:00", never "Z", so scripts can
    /// cut the offset at a fixed position. Years outside 0...9999 use more digits or a "-" sign.
    public static func format(_ instant: Date, in rules: TimeZoneRules) -> String {
        let second = TimeZoneRules.seconds(instant)
        let offset = rules.offset(atSecond: second)
        return "\(LocalDateTime(wallSeconds: second + offset))\(formatOffset(offset))"
    }

    /// Formats a UTC offset in seconds as `±HH:MM` or `±HH:MM:SS`.
    public static func formatOffset(_ offset: Int) -> String {
        let magnitude = abs(offset)
        var text = (offset < 0 ? "-" : "+") + TextDigits.pad2(magnitude / 3_600) + ":" + TextDigits.pad2(magnitude / 60 % 60)
        if magnitude % 60 != 0 { text += ":" + TextDigits.pad2(magnitude % 60) }
        return text
    }

    /// Parses `YYYY-MM-DDTHH:MM[:SS[.fraction]]` followed by `Z`, `z`, `±HH:MM`, `±HHMM`, `±HH` or `±HH:MM:SS`.
    ///
    /// The separator must be "T" or "t"; the fraction may use "." or "," and any number of digits.
    /// Ranges are validated: month 1-12, a real day of that month, hour 0-23, minute 0-59, second 0-60,
    /// offset hours 0-23 and minutes/seconds 0-59. A leap second (:60) is read as :59 of the same minute,
    /// since POSIX time has no leap seconds and an alarm must not move to the next minute.
    /// Anything else, including a missing offset, returns nil.
    public static func parse(_ text: String) -> Date? {
        var scanner = TextScanner(text)
        guard let year = scanner.integer(minDigits: 4, maxDigits: 4), scanner.consume("-"),
              let month = scanner.integer(minDigits: 2, maxDigits: 2), scanner.consume("-"),
              let day = scanner.integer(minDigits: 2, maxDigits: 2),
              scanner.consume("T") || scanner.consume("t"),
              let hour = scanner.integer(minDigits: 2, maxDigits: 2), scanner.consume(":"),
              let minute = scanner.integer(minDigits: 2, maxDigits: 2) else { return nil }
        var second = 0
        var fraction = 0.0
        if scanner.consume(":") {
            guard let parsed = scanner.integer(minDigits: 2, maxDigits: 2) else { return nil }
            second = parsed
            if scanner.consume(".") || scanner.consume(",") {
                let digits = scanner.digitRun()
                guard !digits.isEmpty else { return nil }
                var scale = 1.0
                for digit in digits.prefix(15) {
                    scale /= 10
                    fraction += Double(digit - UInt8(ascii: "0")) * scale
                }
            }
        }
        guard let offset = parseOffset(&scanner), scanner.isAtEnd,
              let date = CivilDate(year: year, month: month, day: day),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        let seconds = date.daysSinceEpoch * 86_400 + hour * 3_600 + minute * 60 + min(second, 59) - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Parses the offset designator, returning seconds east of UTC.
    private static func parseOffset(_ scanner: inout TextScanner) -> Int? {
        if scanner.consume("Z") || scanner.consume("z") { return 0 }
        let sign: Int
        if scanner.consume("+") {
            sign = 1
        } else if scanner.consume("-") {
            sign = -1
        } else {
            return nil
        }
        guard let hours = scanner.integer(minDigits: 2, maxDigits: 2), hours <= 23 else { return nil }
        var minutes = 0
        var seconds = 0
        if scanner.consume(":") {
            guard let parsed = scanner.integer(minDigits: 2, maxDigits: 2) else { return nil }
            minutes = parsed
            if scanner.consume(":") {
                guard let parsed = scanner.integer(minDigits: 2, maxDigits: 2) else { return nil }
                seconds = parsed
            }
        } else if let parsed = scanner.integer(minDigits: 2, maxDigits: 2) {
            minutes = parsed
        }
        guard minutes <= 59, seconds <= 59 else { return nil }
        return sign * (hours * 3_600 + minutes * 60 + seconds)
    }
}

extension TimeZoneRules {
    /// An instant as a person gives one: ISO 8601 with `Z` or an offset, or a local
    /// `YYYY-MM-DDTHH:MM[:SS]` in this zone.
    public func instant(parsing text: String) -> Date? {
        ISO8601.parse(text) ?? LocalDateTime(text).map(instant(for:))
    }
}
