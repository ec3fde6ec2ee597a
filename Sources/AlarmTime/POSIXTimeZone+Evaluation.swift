import AlarmModel

/// Evaluating a POSIX TZ rule at an instant without allocating.
///
/// The yearly start and end changes form a sequence of events ordered by (instant, rule year, start
/// before end). The state at an instant is set by the last event at or before it. Ordering by rule year
/// on ties makes "DST all year" rules (end of year Y at the same instant as start of year Y+1) stay in DST,
/// and searching neighbouring years handles changes that a large rule time moves into another year.
/// Rule years are taken from local standard time, not UTC as glibc does; the two only differ for rules
/// whose changes lie within a UTC offset of New Year.
extension POSIXTimeZone {
    /// Events of one kind in consecutive years are at least this far apart (`Mm.w.d` can move 364 days).
    private static let minimumSpacing = 364 * 86_400

    /// Seconds east of UTC in force at `instant` (seconds since the epoch).
    func offset(at instant: Int) -> Int {
        guard let daylight else { return standardOffset }
        return isDaylight(at: instant, daylight) ? daylight.offset : standardOffset
    }

    /// The first instant strictly after `instant` at which the offset changes, or nil if it never does
    /// (or only beyond ``TimeZoneRules/secondsLimit``).
    func nextChange(after instant: Int) -> Int? {
        guard let daylight, daylight.offset != standardOffset, instant < TimeZoneRules.secondsLimit else { return nil }
        let current = offset(at: instant)
        var probe = max(instant, -TimeZoneRules.secondsLimit)
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

    /// `instant` limited to the range where rule years stay within ``CivilDate/supportedYears``,
    /// which keeps the year searches below short (TZif transition times may be near `Int.max`).
    private func clamped(_ instant: Int) -> Int {
        min(max(instant, -TimeZoneRules.secondsLimit), TimeZoneRules.secondsLimit)
    }

    /// The rule year that local standard time at `instant` (already clamped) falls in.
    private func ruleYear(at instant: Int) -> Int {
        CivilDate(daysSinceEpoch: floorDivide(instant + standardOffset, 86_400)).year
    }

    private func isDaylight(at instant: Int, _ daylight: Daylight) -> Bool {
        let instant = clamped(instant)
        let year = ruleYear(at: instant)
        let start = latestEvent(isStart: true, atOrBefore: instant, near: year, daylight)
        let end = latestEvent(isStart: false, atOrBefore: instant, near: year, daylight)
        // Key order (instant, rule year, start before end); spelled out as tuple comparison is slow unoptimized.
        if start.instant != end.instant { return start.instant > end.instant }
        return start.year > end.year
    }

    /// The last event of one kind at or before `instant`, with its rule year. Events of one kind grow by
    /// at least `minimumSpacing` a year, which bounds the search to a step or two from `year`.
    private func latestEvent(isStart: Bool, atOrBefore instant: Int, near year: Int,
                             _ daylight: Daylight) -> (instant: Int, year: Int) {
        var eventYear = year
        var event = eventInstant(year: eventYear, isStart: isStart, daylight)
        if event <= instant {
            while instant - event >= Self.minimumSpacing {
                let next = eventInstant(year: eventYear + 1, isStart: isStart, daylight)
                guard next <= instant else { break }
                eventYear += 1
                event = next
            }
        } else {
            repeat {
                eventYear -= 1
                event = eventInstant(year: eventYear, isStart: isStart, daylight)
            } while event > instant
        }
        return (event, eventYear)
    }

    /// The earliest event of either kind strictly after `instant` (already clamped).
    private func nextEvent(after instant: Int, _ daylight: Daylight) -> Int? {
        let year = ruleYear(at: instant)
        var best: Int?
        // A change of rule year Y lies within about 8 days of year Y, so these years hold the next one.
        for candidateYear in (year - 1)...(year + 2) {
            for order in 0...1 {
                let event = eventInstant(year: candidateYear, isStart: order == 0, daylight)
                if event > instant, event < (best ?? Int.max) { best = event }
            }
        }
        return best
    }
}
