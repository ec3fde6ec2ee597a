import AlarmModel
import FoundationEssentials

/// When a wall-clock alarm set for `time` next fires.
///
/// Returns the first local calendar day `d` with `d >= from` (when given) and, when `weekdays` is
/// non-nil and non-empty, `d.weekday` in `weekdays`, whose alarm instant is strictly after `after`;
/// together with that instant. The alarm instant follows ``LocalTimeResolution/alarmInstant``: a time
/// skipped by a spring-forward change fires shifted by the gap's length, a repeated time fires once, at
/// its first occurrence. An empty `weekdays` set counts as no restriction.
///
/// The search starts at the local day of `after` minus one (or `from`, if later), because a zone's
/// offset can place day `d`'s alarm after `after` even when `d` precedes `after`'s local day; days
/// before that cannot qualify for offset changes of up to 24 hours. Alarm instants never decrease from
/// one day to the next, so the scan stops at the first match: within a few days, about 9 with a weekday
/// filter. Allocation-free.
public func nextOccurrence(of time: CivilTime, weekdays: Set<Locale.Weekday>?, after: Date, onOrAfter from: CivilDate?,
                           in rules: TimeZoneRules) -> (day: CivilDate, instant: Date) {
    let earliest = rules.localDateTime(at: after).date.adding(days: -1)
    var day = max(from ?? earliest, earliest)
    let filter = weekdays.flatMap { $0.isEmpty ? nil : $0 }
    var instant = rules.instant(for: LocalDateTime(date: day, time: time))
    // The bound only guards against the calendar's end; real searches return within 9 iterations.
    for _ in 0..<16 {
        if filter?.contains(day.weekday) ?? true {
            instant = rules.instant(for: LocalDateTime(date: day, time: time))
            if instant > after { break }
        }
        day = day.adding(days: 1)
    }
    return (day, instant)
}
