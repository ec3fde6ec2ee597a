import FoundationEssentials

/// A day of the proleptic Gregorian calendar, independent of any time zone.
///
/// Values are always valid dates. Years are limited to ``supportedYears`` so that day arithmetic
/// can never overflow; `description` and `Codable` use the ISO 8601 form `YYYY-MM-DD`.
public struct CivilDate: Hashable, Comparable, Sendable, Codable, CustomStringConvertible, LosslessStringConvertible {
    /// The calendar year; 0 is 1 BC, negative years continue backwards.
    public let year: Int
    /// 1 (January) through 12 (December).
    public let month: Int
    /// The day of the month, from 1.
    public let day: Int

    /// The years a `CivilDate` can represent; wide enough for any instant a `Date` can hold.
    public static let supportedYears = -1_000_000_000...1_000_000_000

    /// Days since 1970-01-01 of the first and last supported day, used to clamp arithmetic.
    static let supportedDays = CivilDate.days(year: supportedYears.lowerBound, month: 1, day: 1)
        ... CivilDate.days(year: supportedYears.upperBound, month: 12, day: 31)

    /// Creates a date, or returns nil when the combination does not exist (month 13, February 30, ...).
    public init?(year: Int, month: Int, day: Int) {
        guard CivilDate.supportedYears.contains(year), (1...12).contains(month),
              day >= 1, day <= CivilDate.daysInMonth(year: year, month: month) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Creates the date lying `daysSinceEpoch` days after 1970-01-01 (negative: before it).
    ///
    /// Values beyond ``supportedYears`` are clamped to its first or last day rather than trapping.
    public init(daysSinceEpoch: Int) {
        let clamped = min(max(daysSinceEpoch, CivilDate.supportedDays.lowerBound), CivilDate.supportedDays.upperBound)
        // Shift to an epoch of 0000-03-01 so leap days fall at the end of each 400-year era.
        let shifted = clamped + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let marchBasedMonth = (5 * dayOfYear + 2) / 153
        let month = marchBasedMonth < 10 ? marchBasedMonth + 3 : marchBasedMonth - 9
        self.day = dayOfYear - (153 * marchBasedMonth + 2) / 5 + 1
        self.month = month
        self.year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Negative before 1970-01-01.
    public var daysSinceEpoch: Int {
        CivilDate.days(year: year, month: month, day: day)
    }

    public var weekday: Locale.Weekday {
        CivilDate.weekday(daysSinceEpoch: daysSinceEpoch)
    }

    /// The date `days` days later (earlier when negative), clamped to the supported range.
    public func adding(days: Int) -> CivilDate {
        let (sum, overflow) = daysSinceEpoch.addingReportingOverflow(days)
        if overflow { return CivilDate(daysSinceEpoch: days > 0 ? Int.max : Int.min) }
        return CivilDate(daysSinceEpoch: sum)
    }

    public static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days in `month` (1-12) of `year`; 0 for an invalid month.
    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 1, 3, 5, 7, 8, 10, 12: 31
        case 4, 6, 9, 11: 30
        case 2: isLeapYear(year) ? 29 : 28
        default: 0
        }
    }

    /// Days since 1970-01-01 for a date known to be valid; callers guarantee the ranges.
    package static func days(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let marchBasedMonth = (month + 9) % 12
        let dayOfYear = (153 * marchBasedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The weekday of a day count; 1970-01-01 was a Thursday.
    static func weekday(daysSinceEpoch days: Int) -> Locale.Weekday {
        let index = ((days % 7) + 11) % 7  // 0 = Sunday
        return CivilDate.weekdays[index]
    }

    /// Weekdays indexed from Sunday = 0, the numbering POSIX TZ rules use.
    static let weekdays: [Locale.Weekday] = [.sunday, .monday, .tuesday, .wednesday, .thursday, .friday, .saturday]

    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// The ISO 8601 calendar date, e.g. "2026-03-29"; years outside 0...9999 carry a sign or more digits.
    public var description: String {
        "\(TextDigits.year(year))-\(TextDigits.pad2(month))-\(TextDigits.pad2(day))"
    }

    /// Parses the form produced by `description` ("2026-03-29", "-0044-03-15"); nil when malformed or invalid.
    public init?(_ description: String) {
        var scanner = TextScanner(description)
        let negative = scanner.consume("-")
        guard let rawYear = scanner.integer(minDigits: 4, maxDigits: 10), scanner.consume("-"),
              let month = scanner.integer(minDigits: 2, maxDigits: 2), scanner.consume("-"),
              let day = scanner.integer(minDigits: 2, maxDigits: 2), scanner.isAtEnd else { return nil }
        self.init(year: negative ? -rawYear : rawYear, month: month, day: day)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = CivilDate(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "invalid date \"\(text)\"")
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
