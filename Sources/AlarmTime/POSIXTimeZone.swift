import AlarmModel

/// A parsed POSIX TZ string (`std offset [dst [offset] [,start[/time],end[/time]]]`), with the
/// RFC 8536 extensions: rule times from -167 to 167 hours, quoted names such as `<+0330>`,
/// and daylight time all year (start Jan 1 00:00, end Dec 31 24:00 plus the DST shift).
///
/// Offsets are stored as seconds east of UTC, the opposite sign of the string.
struct POSIXTimeZone: Sendable, Hashable {
    /// The offset of standard time, seconds east of UTC.
    let standardOffset: Int
    /// The alternative time and when it applies; nil for a zone without DST.
    let daylight: Daylight?

    /// The alternative ("daylight") offset and its yearly start and end.
    struct Daylight: Sendable, Hashable {
        /// Seconds east of UTC while the alternative time is in force (may be below standard, as in Dublin).
        let offset: Int
        /// When the alternative time starts, expressed in the standard time then in force.
        let start: Rule
        /// When the alternative time ends, expressed in the alternative time then in force.
        let end: Rule
    }

    /// One yearly change: a day and a time of day (seconds, possibly negative or beyond 24 h).
    struct Rule: Sendable, Hashable {
        enum Day: Sendable, Hashable {
            /// `Jn`: day 1...365, February 29 is never counted.
            case julian(Int)
            /// `n`: zero-based day 0...365, February 29 counted in leap years.
            case zeroBased(Int)
            /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (5 = last) of month `m`.
            case monthWeekDay(month: Int, week: Int, weekday: Int)
        }

        let day: Day
        let time: Int

        /// Days since 1970-01-01 of the local day on which the change happens in `year`.
        func dayNumber(year: Int) -> Int {
            switch day {
            case .julian(let n):
                return CivilDate.days(year: year, month: 1, day: 1) + n - 1 + (n >= 60 && CivilDate.isLeapYear(year) ? 1 : 0)
            case .zeroBased(let n):
                return CivilDate.days(year: year, month: 1, day: 1) + n
            case .monthWeekDay(let month, let week, let weekday):
                let first = CivilDate.days(year: year, month: month, day: 1)
                let firstWeekday = ((first % 7) + 11) % 7
                var result = first + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
                let last = first + CivilDate.daysInMonth(year: year, month: month) - 1
                while result > last { result -= 7 }
                return result
            }
        }
    }

    /// Parses `string`; throws `.malformedPOSIXTZ` naming the string and what was expected.
    init(parsing string: String) throws(TimeZoneError) {
        var scanner = TextScanner(string)
        func failure(_ reason: String) -> TimeZoneError {
            .malformedPOSIXTZ(string, reason: reason)
        }
        guard POSIXTimeZone.skipName(&scanner) else {
            throw failure("expected a standard time name of 3 or more letters, or <...>")
        }
        guard let standardWest = POSIXTimeZone.time(&scanner, maxHours: 24, signed: true) else {
            throw failure("expected a UTC offset (hh[:mm[:ss]], hours 0-24) after the standard time name")
        }
        standardOffset = -standardWest
        if scanner.isAtEnd {
            daylight = nil
            return
        }
        guard POSIXTimeZone.skipName(&scanner) else {
            throw failure("expected a daylight time name of 3 or more letters, or <...>")
        }
        var daylightWest = standardWest - 3_600
        if let next = scanner.peek(), next != UInt8(ascii: ",") {
            guard let parsed = POSIXTimeZone.time(&scanner, maxHours: 24, signed: true) else {
                throw failure("expected a UTC offset (hh[:mm[:ss]], hours 0-24) after the daylight time name")
            }
            daylightWest = parsed
        }
        let start: Rule
        let end: Rule
        if scanner.isAtEnd {
            // POSIX leaves the default implementation-defined; glibc uses the US rules.
            start = Rule(day: .monthWeekDay(month: 3, week: 2, weekday: 0), time: 7_200)
            end = Rule(day: .monthWeekDay(month: 11, week: 1, weekday: 0), time: 7_200)
        } else {
            guard scanner.consume(","), let parsedStart = POSIXTimeZone.rule(&scanner) else {
                throw failure("expected \",\" and a start rule (Jn, n or Mm.w.d, optional /time with hours -167 to 167)")
            }
            guard scanner.consume(","), let parsedEnd = POSIXTimeZone.rule(&scanner) else {
                throw failure("expected \",\" and an end rule (Jn, n or Mm.w.d, optional /time with hours -167 to 167)")
            }
            guard scanner.isAtEnd else { throw failure("unexpected text after the end rule") }
            start = parsedStart
            end = parsedEnd
        }
        daylight = Daylight(offset: -daylightWest, start: start, end: end)
    }

    /// Skips a zone abbreviation: 3+ ASCII letters, or `<` 3+ letters, digits, '+' or '-' `>`.
    private static func skipName(_ scanner: inout TextScanner) -> Bool {
        var length = 0
        if scanner.consume("<") {
            while let byte = scanner.peek(), byte != UInt8(ascii: ">") {
                guard TextScanner.isLetter(byte) || TextScanner.isDigit(byte)
                        || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") else { return false }
                _ = scanner.next()
                length += 1
            }
            return scanner.consume(">") && length >= 3
        }
        while let byte = scanner.peek(), TextScanner.isLetter(byte) {
            _ = scanner.next()
            length += 1
        }
        return length >= 3
    }

    /// Parses `[+|-]hh[:mm[:ss]]` as seconds with hours up to `maxHours`; the sign is allowed only when `signed`.
    private static func time(_ scanner: inout TextScanner, maxHours: Int, signed: Bool) -> Int? {
        var sign = 1
        if signed, scanner.consume("-") {
            sign = -1
        } else if signed {
            _ = scanner.consume("+")
        }
        guard let hours = scanner.integer(minDigits: 1, maxDigits: 3), hours <= maxHours else { return nil }
        var minutes = 0
        var seconds = 0
        if scanner.consume(":") {
            guard let parsed = scanner.integer(minDigits: 1, maxDigits: 2), parsed <= 59 else { return nil }
            minutes = parsed
            if scanner.consume(":") {
                guard let parsed = scanner.integer(minDigits: 1, maxDigits: 2), parsed <= 59 else { return nil }
                seconds = parsed
            }
        }
        return sign * (hours * 3_600 + minutes * 60 + seconds)
    }

    /// Parses `date[/time]`; the time defaults to 02:00.
    private static func rule(_ scanner: inout TextScanner) -> Rule? {
        let day: Rule.Day
        if scanner.consume("J") {
            guard let n = scanner.integer(minDigits: 1, maxDigits: 3), (1...365).contains(n) else { return nil }
            day = .julian(n)
        } else if scanner.consume("M") {
            guard let month = scanner.integer(minDigits: 1, maxDigits: 2), (1...12).contains(month), scanner.consume("."),
                  let week = scanner.integer(minDigits: 1, maxDigits: 1), (1...5).contains(week), scanner.consume("."),
                  let weekday = scanner.integer(minDigits: 1, maxDigits: 1), (0...6).contains(weekday) else { return nil }
            day = .monthWeekDay(month: month, week: week, weekday: weekday)
        } else {
            guard let n = scanner.integer(minDigits: 1, maxDigits: 3), (0...365).contains(n) else { return nil }
            day = .zeroBased(n)
        }
        var time = 7_200
        if scanner.consume("/") {
            guard let parsed = POSIXTimeZone.time(&scanner, maxHours: 167, signed: true) else { return nil }
            time = parsed
        }
        return Rule(day: day, time: time)
    }
}
