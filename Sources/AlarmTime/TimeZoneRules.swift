import AlarmModel
import FoundationEssentials

/// The UTC offsets of one zone over all time, taken from TZif data or a POSIX TZ string.
///
/// Only offsets matter: abbreviations and DST flags are dropped, and consecutive periods with the same
/// offset are merged, so ``nextTransition(after:)`` reports real changes only. Explicit transitions apply
/// before the last one in the file; from the last one on, the footer rule applies (as glibc does), and
/// before the first one, local time type 0 (RFC 8536). Lookups are binary searches that do not allocate.
public struct TimeZoneRules: Sendable, Hashable {
    /// The zone's name: a database name like "Europe/Berlin", "UTC", "localtime", or the POSIX TZ string.
    public let identifier: String

    /// Instants where the offset changes, strictly ascending, all before `ruleStart`.
    let transitions: [Int]
    /// The offset from `transitions[i]` on; neighbours always differ.
    let offsetsAfter: [Int]
    /// The offset before the first transition.
    let initialOffset: Int
    /// The rule for instants from `ruleStart` on.
    let rule: POSIXTimeZone?
    /// Where `rule` takes over: `Int.max` without a rule, `Int.min` if it applies throughout.
    let ruleStart: Int

    public static let utc = TimeZoneRules(identifier: "UTC", table: [], initialOffset: 0, rule: nil, ruleStart: .max)

    /// Loads rules from the bytes of a TZif file of version 1 to 4; `.malformedTZif` names
    /// `identifier` as its source.
    public init(tzif bytes: [UInt8], identifier: String) throws(TimeZoneError) {
        let data: TZif
        do {
            data = try TZif(bytes: bytes)
        } catch .malformedTZif(_, let reason) {
            throw .malformedTZif(source: identifier, reason: reason)
        } catch {
            throw error
        }
        let table = zip(data.transitionTimes, data.transitionOffsets)
        if let footer = data.footer {
            let start = data.transitionTimes.last ?? .min
            self.init(identifier: identifier, table: table.dropLast(), initialOffset: data.firstTypeOffset,
                      rule: footer, ruleStart: start)
        } else {
            self.init(identifier: identifier, table: Array(table), initialOffset: data.firstTypeOffset,
                      rule: nil, ruleStart: .max)
        }
    }

    /// Creates rules from a POSIX TZ string such as "CET-1CEST,M3.5.0,M10.5.0/3"; the string becomes the identifier.
    ///
    /// Accepts the RFC 8536 extensions (rule times from -167 to 167 hours, `<...>` names, DST all year).
    /// A DST name without rules gets the US rules "M3.2.0,M11.1.0", as in glibc.
    public init(posix: String) throws(TimeZoneError) {
        let rule = try POSIXTimeZone(parsing: posix)
        self.init(identifier: posix, table: [], initialOffset: rule.standardOffset, rule: rule, ruleStart: .min)
    }

    /// Builds the lookup tables from raw (instant, offset) transitions, merging those that change nothing.
    init<S: Sequence<(Int, Int)>>(identifier: String, table: S, initialOffset: Int, rule: POSIXTimeZone?, ruleStart: Int) {
        var transitions: [Int] = []
        var offsets: [Int] = []
        var current = initialOffset
        for (instant, offset) in table where offset != current {
            transitions.append(instant)
            offsets.append(offset)
            current = offset
        }
        self.identifier = identifier
        self.transitions = transitions
        self.offsetsAfter = offsets
        self.initialOffset = initialOffset
        self.rule = rule
        self.ruleStart = rule == nil ? .max : ruleStart
    }

    /// Seconds east of UTC in force at `instant`; a binary search, or a few date computations past the
    /// last explicit transition. Instants beyond about ±980 million years are clamped.
    public func offset(at instant: Date) -> Int {
        offset(atSecond: Self.seconds(instant))
    }

    /// The wall-clock reading at `instant`, floored to whole seconds (so 23:59:59.7 reads 23:59:59).
    public func localDateTime(at instant: Date) -> LocalDateTime {
        let second = Self.seconds(instant)
        return LocalDateTime(wallSeconds: second + offset(atSecond: second))
    }

    /// The next instant strictly after `instant` at which the UTC offset changes, or nil if it never changes again.
    ///
    /// Changes that only rename the zone or flip its DST flag are not reported.
    public func nextTransition(after instant: Date) -> Date? {
        nextTransition(afterSecond: Self.seconds(instant)).map { Date(timeIntervalSince1970: Double($0)) }
    }

    /// Offset at a whole second; transitions fall on whole seconds, so flooring never changes the answer.
    func offset(atSecond second: Int) -> Int {
        if second >= ruleStart, let rule { return rule.offset(at: second) }
        let count = transitionCount(atOrBefore: second)
        return count == 0 ? initialOffset : offsetsAfter[count - 1]
    }

    func nextTransition(afterSecond second: Int) -> Int? {
        if second >= ruleStart, let rule { return rule.nextChange(after: second) }
        let count = transitionCount(atOrBefore: second)
        if count < transitions.count { return transitions[count] }
        guard let rule else { return nil }
        let before = count == 0 ? initialOffset : offsetsAfter[count - 1]
        return rule.offset(at: ruleStart) != before ? ruleStart : rule.nextChange(after: ruleStart)
    }

    /// The number of table transitions at or before `second` (binary search).
    func transitionCount(atOrBefore second: Int) -> Int {
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = low + (high - low) / 2
            if transitions[middle] <= second { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The largest magnitude of instant handled, about 980 million years; keeps all arithmetic far from overflow.
    static let secondsLimit = 31_000_000_000_000_000

    /// Whole seconds of `instant`, floored and clamped to `secondsLimit` (NaN counts as the epoch).
    static func seconds(_ instant: Date) -> Int {
        let value = instant.timeIntervalSince1970.rounded(.down)
        guard !value.isNaN else { return 0 }
        return Int(min(max(value, -Double(secondsLimit)), Double(secondsLimit)))
    }
}
