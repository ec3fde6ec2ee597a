/// A wall-clock reading (calendar day plus time of day) with no zone attached.
///
/// Whether it names zero, one or two instants depends on a zone: see ``TimeZoneRules/resolve(_:)``.
public struct LocalDateTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var date: CivilDate
    public var time: CivilTime

    public init(date: CivilDate, time: CivilTime) {
        self.date = date
        self.time = time
    }

    public static func < (lhs: LocalDateTime, rhs: LocalDateTime) -> Bool {
        (lhs.date, lhs.time) < (rhs.date, rhs.time)
    }

    /// ISO 8601 without offset, e.g. "2026-03-29T02:30:00".
    public var description: String {
        "\(date)T\(time)"
    }

    /// Parses `YYYY-MM-DDTHH:MM[:SS]`, each part as ``CivilDate`` and ``CivilTime`` read theirs.
    public init?(_ description: String) {
        let parts = description.split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let date = CivilDate(String(parts[0])), let time = CivilTime(String(parts[1])) else {
            return nil
        }
        self.init(date: date, time: time)
    }

    /// The reading as seconds since 1970-01-01T00:00:00 on the same wall clock; the form used for zone arithmetic.
    package var wallSeconds: Int {
        date.daysSinceEpoch * 86_400 + time.secondsSinceMidnight
    }

    /// The reading `wallSeconds` seconds after 1970-01-01T00:00:00 (floor division for negative values).
    package init(wallSeconds: Int) {
        let days = floorDivide(wallSeconds, 86_400)
        date = CivilDate(daysSinceEpoch: days)
        time = CivilTime(secondsSinceMidnight: wallSeconds - days * 86_400)
    }
}

/// Division rounding towards negative infinity, for a positive divisor; never overflows.
package func floorDivide(_ dividend: Int, _ divisor: Int) -> Int {
    let quotient = dividend / divisor
    return dividend % divisor < 0 ? quotient - 1 : quotient
}
