/// Evaluating a POSIX TZ rule at an instant without allocating.
///
/// The yearly start and end changes form a sequence of events ordered by (instant, rule year, start
/// before end). The state at an instant is set by the last event at or before it. Ordering by rule year
/// on ties makes "DST all year" rules (end of year Y at the same instant as start of year Y+1) stay in DST,
/// and considering the neighbouring years handles changes that a large rule time moves into another year.
/// Rule years are taken from local standard time, not UTC as glibc does; the two only differ for rules
/// whose changes lie within a UTC offset of New Year.
extension POSIXTimeZone {
    /// Seconds east of UTC in force at `instant` (seconds since the epoch).
    func offset(at instant: Int) -> Int {
        guard let daylight else { return standardOffset }
        return isDaylight(at: instant, daylight) ? daylight.offset : standardOffset
    }

    /// The first instant strictly after `instant` at which the offset changes, or nil if it never does.
    func nextChange(after instant: Int) -> Int? {
        guard let daylight, daylight.offset != standardOffset else { return nil }
        let current = offset(at: instant)
        var probe = instant
        // Events alternate within a year, so a real change shows up within a few years unless there is none.
        for _ in 0..<12 {
            guard let event = nextEvent(after: probe, daylight) else { return nil }
            if offset(at: event) != current { return event }
            probe = event
        }
        return nil
    }

    /// UTC instant of the start (`isStart`) or end change belonging to rule year `year`.
    func eventInstant(year: Int, isStart: Bool, _ daylight: Daylight) -> Int {
        let rule = isStart ? daylight.start : daylight.end
        let offsetBefore = isStart ? standardOffset : daylight.offset
        return rule.dayNumber(year: year) * 86_400 + rule.time - offsetBefore
    }

    /// The rule year that local standard time at `instant` falls in.
    private func ruleYear(at instant: Int) -> Int {
        // TZif transition times may be near Int.max; clamping keeps the addition from overflowing.
        let limit = 2 * TimeZoneRules.secondsLimit
        return CivilDate(daysSinceEpoch: floorDivide(min(max(instant, -limit), limit) + standardOffset, 86_400)).year
    }

    private func isDaylight(at instant: Int, _ daylight: Daylight) -> Bool {
        let year = ruleYear(at: instant)
        // A change of rule year Y lies within about 8 days of year Y, so year - 2 always has an event before `instant`.
        var best = (instant: Int.min, year: Int.min, order: -1)
        for candidateYear in (year - 2)...(year + 1) {
            for order in 0...1 {
                let key = (instant: eventInstant(year: candidateYear, isStart: order == 0, daylight), year: candidateYear, order: order)
                if key.instant <= instant && key > best { best = key }
            }
        }
        return best.order == 0
    }

    private func nextEvent(after instant: Int, _ daylight: Daylight) -> Int? {
        let year = ruleYear(at: instant)
        var best: Int?
        for candidateYear in (year - 1)...(year + 2) {
            for order in 0...1 {
                let event = eventInstant(year: candidateYear, isStart: order == 0, daylight)
                if event > instant, event < (best ?? Int.max) { best = event }
            }
        }
        return best
    }
}
