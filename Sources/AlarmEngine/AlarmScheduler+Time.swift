import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials

extension AlarmScheduler {
    /// Does everything due at `now`: countdowns start, alerts start or are missed, unanswered
    /// alerts are silenced, repeating alarms move on.
    ///
    /// Idempotent: a second call with the same `now`, or an earlier one, changes nothing.
    public mutating func evaluate(now: Date) -> SchedulerOutcome {
        var outcome = SchedulerOutcome()
        while let next = earliestDeadline, next.deadline <= now {
            settle(next.key, now: now, into: &outcome)
            if let after = deadlines[next.key], after <= now {
                // settle always leaves a deadline after `now`; if a bug ever broke that, retrying a
                // second later keeps the alarm alive instead of spinning here forever.
                assertionFailure("settle left alarm \(next.key) due at \(after), not after \(now)")
                deadlines[next.key] = now.addingTimeInterval(1)
            }
        }
        return outcome
    }

    /// The wall clock was set. `jump` is how far it moved, if known (from a monotonic clock).
    ///
    /// Timers and snoozes keep their remaining time (they measure elapsed time) and an alert keeps
    /// its remaining auto-silence time; scheduled occurrences are wall-clock events and are
    /// re-evaluated where they now fall: one the clock jumped over rings if it is within the
    /// grace period and is recorded as missed otherwise; none rings twice.
    ///
    /// Call this before ``setClockTrusted(_:now:)`` when a set clock also becomes trusted: when
    /// the clock was untrusted, only dates written under it move with the jump. A timer started
    /// before a power cut, under a good clock, keeps its real end when NTP sets the clock at boot.
    ///
    /// With `holding`, a forward jump nothing has confirmed holds what it passed over beyond the
    /// grace period instead of missing it (``holdPassedOver(jump:now:into:)``); any jump puts back
    /// the held occurrences the clock is now before.
    public mutating func clockChanged(jump: TimeInterval?, now: Date, holding: Bool = false) -> SchedulerOutcome {
        var outcome = SchedulerOutcome()
        for var record in records.values {
            let shift = jump.flatMap { isClockTrusted || record.datesFromUntrustedClock ? $0 : nil }
            switch record.phase {
            case .countdown(var countdown) where countdown.kind != .preAlert:
                guard let shift else { continue }
                countdown.startDate = countdown.startDate.addingTimeInterval(shift)
                record.phase = .countdown(countdown)
            case .alerting(var alerting):
                guard let shift else { continue }
                alerting.since = alerting.since.addingTimeInterval(shift)
                record.phase = .alerting(alerting)
            case .countdown(let countdown):
                // A pre-alert countdown ends at its occurrence's wall time: start it over from there.
                record.phase = .scheduled(countdown.occurrence)
            default:
                continue
            }
            // The shifted dates must reach the store, or a restart would bring back the old ones.
            store(record)
            outcome.changedOwners.insert(record.owner)
        }
        releaseHeld(now: now, into: &outcome)
        if holding, let jump { holdPassedOver(jump: jump, now: now, into: &outcome) }
        reindexAll()
        outcome.merge(evaluate(now: now))
        return outcome
    }

    /// The device's zone (or its rules) changed. Relative alarms follow the new zone: an
    /// occurrence whose wall time has now passed is treated as a jump over it (late ring within the
    /// grace period, otherwise recorded as missed); fixed alarms keep their instants.
    public mutating func timeZoneChanged(to rules: TimeZoneRules, now: Date) -> SchedulerOutcome {
        var outcome = evaluate(now: now)
        timeZone = rules
        for var record in records.values {
            guard case .countdown(let countdown) = record.phase, countdown.kind == .preAlert,
                  case .day = countdown.occurrence
            else { continue }
            record.phase = .scheduled(countdown.occurrence)
            store(record)
            outcome.changedOwners.insert(record.owner)
        }
        reindexAll()
        outcome.merge(evaluate(now: now))
        return outcome
    }

    /// Whether the wall clock is known good. Relative alarms set while it was not get their first
    /// occurrence from the now-trusted clock.
    public mutating func setClockTrusted(_ trusted: Bool, now: Date) -> SchedulerOutcome {
        guard trusted != isClockTrusted else { return evaluate(now: now) }
        isClockTrusted = trusted
        var outcome = SchedulerOutcome()
        if trusted {
            // Dates written under the untrusted clock were moved by the jump that made it good.
            for var record in records.values where record.datesFromUntrustedClock {
                record.datesFromUntrustedClock = false
                store(record)
                outcome.changedOwners.insert(record.owner)
            }
            for var record in records.values {
                guard case .scheduled(nil) = record.phase, record.enabled,
                      let next = firstOccurrence(
                          of: record.definition, now: now, after: record.lastOccurrenceDay, skipping: record.skippedDate)
                else { continue }
                record.phase = .scheduled(next)
                store(record)
                outcome.changedOwners.insert(record.owner)
            }
        }
        reindexAll()
        outcome.merge(evaluate(now: now))
        return outcome
    }

    /// Forgets the missed-alarm records (a person has seen them).
    public mutating func acknowledgeMissedAlarms() -> SchedulerOutcome {
        var outcome = SchedulerOutcome()
        guard !missedAlarms.isEmpty else { return outcome }
        missedAlarms.removeAll()
        outcome.missedAlarmsChanged = true
        return outcome
    }

    // MARK: - The state machine in time

    /// The first occurrence of an alarm due after `now` and, for a relative one, on a day after
    /// `lastDay` other than `skipped`; `nil` for a relative alarm while the clock is untrusted.
    func firstOccurrence(
        of definition: AlarmDefinition, now: Date, after lastDay: CivilDate? = nil, skipping skipped: CivilDate? = nil
    ) -> Occurrence? {
        switch definition.schedule {
        case .fixed(let date):
            return .fixed(date)
        case .relative(let relative):
            guard isClockTrusted else { return nil }
            let time = Self.civilTime(of: definition), weekdays = Self.weekdays(of: relative)
            var next = nextOccurrence(of: time, weekdays: weekdays, after: now, onOrAfter: lastDay?.adding(days: 1), in: timeZone)
            if next.day == skipped {
                next = nextOccurrence(of: time, weekdays: weekdays, after: now, onOrAfter: next.day.adding(days: 1), in: timeZone)
            }
            return .day(next.day)
        case nil:
            return nil
        }
    }

    static func weekdays(of relative: Alarm.Schedule.Relative) -> Set<Locale.Weekday>? {
        if case .weekly(let days) = relative.repeats { return Set(days) }
        return nil
    }

    /// Brings one alarm up to `now`, through as many transitions as are due.
    mutating func settle(_ key: AlarmKey, now: Date, into outcome: inout SchedulerOutcome) {
        guard var record = records[key] else { return }
        let before = record
        if let skipEnd = skipEnd(of: record), now >= skipEnd { record.skippedDate = nil }
        transitions: while true {
            switch record.phase {
            case .scheduled(nil), .paused:
                break transitions
            case .scheduled(let occurrence?):
                guard isClockTrusted else { break transitions }
                let due = dueDate(of: occurrence, for: record.definition)
                if now < due {
                    guard let preAlert = record.definition.preAlert, now >= due.addingTimeInterval(-preAlert) else {
                        break transitions
                    }
                    record.phase = .countdown(CountdownPhase(
                        kind: .preAlert, startDate: due.addingTimeInterval(-preAlert),
                        previouslyElapsed: 0, total: preAlert, occurrence: occurrence))
                    outcome.events.append(.countdownStarted(key, fireDate: due))
                    continue transitions
                }
                let latest = latestPassedOccurrence(from: occurrence, due: due, of: record, now: now)
                if latest.skipped > 0 {
                    recordMissed(record, dueDate: latest.skippedDueDate, reason: .tooLate, occurrences: latest.skipped,
                                 now: now, into: &outcome)
                }
                guard startAlert(&record, due: latest.due, occurrence: latest.occurrence, now: now, into: &outcome) else {
                    if !moveOn(&record, after: latest.occurrence, now: now, into: &outcome) { return }
                    continue transitions
                }
            case .countdown(let countdown):
                guard now >= countdown.fireDate else { break transitions }
                guard startAlert(&record, due: countdown.fireDate, occurrence: countdown.occurrence, now: now, into: &outcome) else {
                    if !moveOn(&record, after: countdown.occurrence, now: now, into: &outcome) { return }
                    continue transitions
                }
            case .alerting(let alerting):
                guard policy.autoSilence > 0, now >= alerting.since.addingTimeInterval(policy.autoSilence) else {
                    break transitions
                }
                outcome.events.append(.autoSilenced(key))
                recordMissed(record, dueDate: alerting.dueDate, reason: .unanswered, occurrences: 1, now: now, into: &outcome)
                if !moveOn(&record, after: alerting.occurrence, now: now, into: &outcome) { return }
            }
        }
        if record != before { outcome.changedOwners.insert(record.owner) }
        store(record)
    }

    /// Starts ringing for an occurrence due at `due`, unless it is later than the grace period,
    /// in which case it is recorded as missed and `false` is returned.
    private mutating func startAlert(
        _ record: inout AlarmRecord, due: Date, occurrence: Occurrence?, now: Date,
        into outcome: inout SchedulerOutcome
    ) -> Bool {
        let lateBy = now.timeIntervalSince(due)
        guard lateBy <= policy.missedAlarmGrace else {
            recordMissed(record, dueDate: due, reason: .tooLate, occurrences: 1, now: now, into: &outcome)
            return false
        }
        let time: Alarm.Schedule.Relative.Time
        if case .relative(let relative) = record.definition.schedule {
            time = relative.time
        } else {
            let local = timeZone.localDateTime(at: due).time
            time = .init(hour: local.hour, minute: local.minute)
        }
        record.phase = .alerting(AlertingPhase(since: now, dueDate: due, time: time, occurrence: occurrence))
        outcome.events.append(.alertStarted(record.key, lateBy: max(lateBy, 0)))
        return true
    }

    /// After an occurrence is over (stopped, missed or silenced): a repeating alarm is scheduled for
    /// its next occurrence after `now`, anything else is deleted. Returns whether the alarm remains.
    mutating func moveOn(
        _ record: inout AlarmRecord, after occurrence: Occurrence?, now: Date,
        into outcome: inout SchedulerOutcome
    ) -> Bool {
        if case .day(let day) = occurrence {
            record.lastOccurrenceDay = max(record.lastOccurrenceDay ?? day, day)
        }
        guard Self.repeats(record.definition) else {
            remove(record.key)
            outcome.events.append(.removed(record.key))
            outcome.changedOwners.insert(record.owner)
            return false
        }
        let next = firstOccurrence(of: record.definition, now: now, after: record.lastOccurrenceDay, skipping: record.skippedDate)
        record.phase = .scheduled(next)
        outcome.events.append(.rescheduled(record.key, nextDueDate: next.map { dueDate(of: $0, for: record.definition) }))
        return true
    }

    /// For an occurrence due in the past: the latest occurrence of the alarm that is due by `now`
    /// (a device off for days skips several), and how many earlier ones were skipped.
    private func latestPassedOccurrence(
        from occurrence: Occurrence, due: Date, of record: AlarmRecord, now: Date
    ) -> (occurrence: Occurrence, due: Date, skipped: Int, skippedDueDate: Date) {
        guard case .day(let first) = occurrence, case .relative(let relative) = record.definition.schedule,
              let weekdays = Self.weekdays(of: relative)
        else { return (occurrence, due, 0, due) }
        let time = Self.civilTime(of: record.definition)
        let future = nextOccurrence(of: time, weekdays: weekdays, after: now, onOrAfter: first, in: timeZone)
        var latest = (day: first, due: due)
        var candidate = future.day.adding(days: -1)
        while candidate > first, candidate >= future.day.adding(days: -7) {
            if weekdays.contains(candidate.weekday) {
                let candidateDue = timeZone.instant(for: LocalDateTime(date: candidate, time: time))
                if candidateDue <= now {
                    latest = (candidate, candidateDue)
                    break
                }
            }
            candidate = candidate.adding(days: -1)
        }
        let skipped = Self.count(of: weekdays, from: first, before: latest.day)
        let skippedDue = skipped > 0
            ? previousSelectedDue(before: latest.day, weekdays: weekdays, time: time) ?? due
            : due
        return (.day(latest.day), latest.due, skipped, skippedDue)
    }

    private func previousSelectedDue(before day: CivilDate, weekdays: Set<Locale.Weekday>, time: CivilTime) -> Date? {
        for back in 1...7 {
            let candidate = day.adding(days: -back)
            if weekdays.contains(candidate.weekday) {
                return timeZone.instant(for: LocalDateTime(date: candidate, time: time))
            }
        }
        return nil
    }

    /// How many days in `start..<end` fall on one of `weekdays`.
    static func count(of weekdays: Set<Locale.Weekday>, from start: CivilDate, before end: CivilDate) -> Int {
        let days = end.daysSinceEpoch - start.daysSinceEpoch
        guard days > 0 else { return 0 }
        var count = (days / 7) * weekdays.count
        var day = start.adding(days: (days / 7) * 7)
        while day < end {
            if weekdays.contains(day.weekday) { count += 1 }
            day = day.adding(days: 1)
        }
        return count
    }

    mutating func recordMissed(
        _ record: AlarmRecord, dueDate: Date, reason: MissedAlarm.Reason, occurrences: Int, now: Date,
        into outcome: inout SchedulerOutcome
    ) {
        let missed = MissedAlarm(
            alarmID: record.id, owner: record.owner, title: record.definition.presentation.alert.title,
            dueDate: dueDate, reason: reason, occurrences: occurrences, recordedAt: now)
        missedAlarms.append(missed)
        if missedAlarms.count > policy.missedHistoryLimit {
            missedAlarms.removeFirst(missedAlarms.count - policy.missedHistoryLimit)
        }
        outcome.missedAlarmsChanged = true
        outcome.events.append(.missed(missed))
    }
}
