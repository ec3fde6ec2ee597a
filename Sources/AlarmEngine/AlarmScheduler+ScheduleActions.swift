import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials

extension AlarmScheduler {
    /// Performs one of the device's extensions to AlarmKit on an alarm, after bringing it up to
    /// `now`; ``perform(_:id:owner:now:)`` undoes everything if it throws. Asking for what
    /// already holds changes nothing.
    ///
    /// - `disable`: an alarm with a schedule, unless alerting. A countdown ends (a snooze's
    ///   occurrence counts as rung); the phase becomes `.scheduled(nil)`, so it has no deadline,
    ///   never rings and is never missed; a skip is forgotten.
    /// - `enable`: a disabled alarm gets its first occurrence after `now` (a one-time 07:30 enabled
    ///   at 09:00 rings tomorrow), a `.fixed` one its date unless that passed by more than the grace
    ///   period (then it rings at once, as `schedule` would). On an enabled alarm it undoes a skip:
    ///   a scheduled one takes the skipped day back if its time is still ahead.
    /// - `skip`: a weekly alarm, enabled and not alerting. The occurrence that is scheduled or
    ///   counting down is skipped; while snoozed, the one after the occurrence that rang (the
    ///   snooze runs on: `stop` ends it).
    /// - Throws: ``AlarmOperationError/notFound(_:)`` as AlarmKit's actions do, or an
    ///   ``AlarmChangeRefusal`` naming the reason.
    mutating func changeScheduleCaughtUp(_ command: AlarmCommand, key: AlarmKey, now: Date) throws -> SchedulerOutcome {
        var outcome = SchedulerOutcome()
        settle(key, now: now, into: &outcome)
        guard var record = records[key] else { throw AlarmOperationError.notFound(key.id) }
        func refused(_ reason: String) -> AlarmChangeRefusal {
            AlarmChangeRefusal(command.rawValue, alarmID: key.id, reason: reason)
        }

        let event: SchedulerEvent
        switch command {
        case .stop, .cancel, .countdown, .pause, .resume:
            preconditionFailure("AlarmKit's actions are performed by performCaughtUp(_:key:now:)")

        case .disable:
            guard record.definition.schedule != nil else { throw refused("a timer has no schedule to disable (cancel it instead)") }
            guard record.enabled else { return outcome }
            guard !record.phase.isAlerting else { throw refused("it is alerting (stop it first)") }
            if record.phase.isSnooze, case .day(let day)? = record.phase.occurrence {
                record.lastOccurrenceDay = max(record.lastOccurrenceDay ?? day, day)
            }
            record.enabled = false
            record.skippedDate = nil
            record.phase = .scheduled(nil)
            event = .disabled(key)

        case .enable:
            guard !record.enabled || record.skippedDate != nil else { return outcome }
            if !record.enabled, isClockTrusted, case .fixed(let date)? = record.definition.schedule,
               now.timeIntervalSince(date) > policy.missedAlarmGrace {
                throw refused("its time \(ISO8601.format(date, in: timeZone)) has passed (schedule a new alarm)")
            }
            record.enabled = true
            record.skippedDate = nil
            if case .scheduled = record.phase {
                record.phase = .scheduled(firstOccurrence(of: record.definition, now: now, after: record.lastOccurrenceDay))
            }
            event = .enabled(key)

        case .skip:
            guard case .relative(let relative)? = record.definition.schedule, Self.weekdays(of: relative) != nil else {
                throw refused("only a weekly alarm skips a day (disable a one-time alarm instead)")
            }
            guard record.enabled else { throw refused("it is disabled (enable it first)") }
            guard record.skippedDate == nil else { return outcome }
            guard !record.phase.isAlerting else { throw refused("it is alerting (stop or snooze it first)") }
            guard skipNextOccurrence(of: &record, now: now) else {
                throw refused("the clock is not set yet, so its next day is not known")
            }
            event = .skipped(key)
        }
        outcome.events.append(event)
        outcome.changedOwners.insert(key.owner)
        store(record)
        settle(key, now: now, into: &outcome)
        return outcome
    }

    /// Skips the next occurrence of an enabled weekly alarm that is not alerting; `false`, with
    /// nothing changed, while the clock is untrusted (its next day is not known).
    private func skipNextOccurrence(of record: inout AlarmRecord, now: Date) -> Bool {
        if record.phase.isSnooze {
            // A snooze belongs to the occurrence that rang: the next one is the one after it.
            guard case .day(let rang)? = record.phase.occurrence,
                  case .day(let next)? = firstOccurrence(
                      of: record.definition, now: now, after: max(record.lastOccurrenceDay ?? rang, rang))
            else { return false }
            record.skippedDate = next
        } else {
            guard case .day(let next)? = record.phase.occurrence else { return false }
            record.skippedDate = next
            record.phase = .scheduled(firstOccurrence(
                of: record.definition, now: now, after: record.lastOccurrenceDay, skipping: next))
        }
        return true
    }
}

extension AlarmPhase {
    /// Whether it is a snooze: the countdown after an alert, running or paused.
    var isSnooze: Bool {
        switch self {
        case .countdown(let countdown): countdown.kind == .postAlert
        case .paused(let paused): paused.kind == .postAlert
        case .scheduled, .alerting: false
        }
    }
}

extension AlarmScheduler {
    /// Sets how one of `owner`'s alarms wakes (``AlarmRecord/wake``), in any state: an alert
    /// already ringing keeps its ramp, the next one plays the new one. Setting what holds already
    /// changes nothing.
    ///
    /// - Throws: ``AlarmOperationError/notFound(_:)``, or `.invalidConfiguration` for a value out
    ///   of range; nothing changes then.
    public mutating func setWake(_ wake: AlarmWake, id: Alarm.ID, owner: ClientID) throws(AlarmOperationError) -> SchedulerOutcome {
        try wake.validate()
        let key = AlarmKey(owner: owner, id: id)
        guard var record = records[key] else { throw .notFound(id) }
        var outcome = SchedulerOutcome()
        let stored = wake.isHouseholdDefault ? nil : wake
        guard record.wake != stored else { return outcome }
        record.wake = stored
        store(record)
        outcome.events.append(.wakeChanged(key))
        outcome.changedOwners.insert(owner)
        return outcome
    }
}
