import AlarmModel
import FoundationEssentials

/// Mapping wall-clock readings back to instants.
///
/// An instant `t` shows reading `L` exactly when `t + offset(t) == L`. Offsets lie strictly within
/// ±26 hours, so every such `t` is within 26 hours of `L` and its offset is one of those in force in
/// that window; testing each candidate offset finds all solutions, whatever the size or sign of the
/// changes nearby. With no solution, `L` lies in exactly one gap, found among the window's transitions.
extension TimeZoneRules {
    /// Half the width of the window searched around a reading; larger than any valid UTC offset.
    private static let searchRadius = 26 * 3_600

    /// Classifies `local` as occurring once, twice (fall back) or never (spring forward) in this zone.
    ///
    /// Allocation-free; costs a binary search plus a constant number of offset lookups.
    public func resolve(_ local: LocalDateTime) -> LocalTimeResolution {
        let wall = local.wallSeconds
        let low = wall - Self.searchRadius
        let high = wall + Self.searchRadius
        var earliest = Int.max
        var latest = Int.min

        func consider(_ candidate: Int) {
            let instant = wall - candidate
            if offset(atSecond: instant) == candidate {
                earliest = min(earliest, instant)
                latest = max(latest, instant)
            }
        }

        if let rule, high >= ruleStart {
            consider(rule.standardOffset)
            if let daylight = rule.daylight { consider(daylight.offset) }
        }
        if low < ruleStart {
            var index = transitionCount(atOrBefore: low)
            consider(index == 0 ? initialOffset : offsetsAfter[index - 1])
            while index < transitions.count, transitions[index] <= high {
                consider(offsetsAfter[index])
                index += 1
            }
        }

        if earliest == latest { return .unique(Self.date(earliest)) }
        if earliest < latest { return .repeated(earlier: Self.date(earliest), later: Self.date(latest)) }

        var probe = low
        while let change = nextTransition(afterSecond: probe), change <= high {
            let before = offset(atSecond: change - 1)
            let after = offset(atSecond: change)
            if change + before <= wall, wall < change + after {
                return .skipped(shifted: Self.date(wall - before), transition: Self.date(change))
            }
            probe = change
        }
        // Unreachable: an offset that is constant over the window always yields a solution.
        return .unique(Self.date(wall - offset(atSecond: wall)))
    }

    /// The instant an alarm for `local` fires under the project's policy (see ``LocalTimeResolution/alarmInstant``).
    public func instant(for local: LocalDateTime) -> Date {
        resolve(local).alarmInstant
    }

    static func date(_ second: Int) -> Date {
        Date(timeIntervalSince1970: Double(second))
    }
}
