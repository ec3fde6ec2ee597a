import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials

/// Occurrences a forward clock jump passed over while nothing confirmed the new time.
///
/// A clock set days ahead by mistake (a bad RTC, a wrong `date -s`, a phone in the wrong zone) and
/// put right a minute later must lose nothing: what the jump passed over beyond the grace is held,
/// not missed. A repeating alarm moves on to its next occurrence after the jump (so it still rings
/// if the jump was right and is never confirmed), one that rings once waits; if the clock comes
/// back before a held occurrence, it is scheduled again and rings on its real time; once NTP or a
/// phone confirms the time after the jump, the held occurrences are recorded as missed.
extension AlarmScheduler {
    /// Whether any alarm holds an occurrence (the engine then looks for a confirmation).
    public var hasHeldOccurrences: Bool {
        records.values.contains { $0.held != nil }
    }

    /// Holds what the jump to `now` (from `now - jump`) passed over beyond the grace period.
    mutating func holdPassedOver(jump: TimeInterval, now: Date, into outcome: inout SchedulerOutcome) {
        guard jump > policy.missedAlarmGrace, isClockTrusted else { return }
        let before = now.addingTimeInterval(-jump)
        let graceStart = now.addingTimeInterval(-policy.missedAlarmGrace)
        for var record in records.values where record.enabled && record.held == nil {
            guard case .scheduled(let occurrence?) = record.phase else { continue }
            let due = dueDate(of: occurrence, for: record.definition)
            guard due >= before, due < graceStart else { continue }
            record.held = HeldOccurrence(occurrence: occurrence, lastOccurrenceDay: record.lastOccurrenceDay, since: now)
            if Self.repeats(record.definition) {
                if case .day(let day) = occurrence { record.lastOccurrenceDay = max(record.lastOccurrenceDay ?? day, day) }
                let next = firstOccurrence(
                    of: record.definition, now: now, after: record.lastOccurrenceDay, skipping: record.skippedDate)
                record.phase = .scheduled(next)
            }
            store(record)
            outcome.changedOwners.insert(record.owner)
        }
    }

    /// Schedules again every held occurrence the clock is back before (or within the grace of):
    /// the jump was a mistake, and they ring on their real time.
    mutating func releaseHeld(now: Date, into outcome: inout SchedulerOutcome) {
        let graceStart = now.addingTimeInterval(-policy.missedAlarmGrace)
        for var record in records.values {
            guard let held = record.held, dueDate(of: held.occurrence, for: record.definition) >= graceStart else { continue }
            record.held = nil
            record.lastOccurrenceDay = held.lastOccurrenceDay
            record.phase = .scheduled(held.occurrence)
            store(record)
            outcome.changedOwners.insert(record.owner)
        }
    }

    /// The time was confirmed at `confirmedAt` by a trusted source: every occurrence held over a
    /// jump before then is missed (an alarm that rings once is deleted).
    public mutating func confirmHeld(confirmedAt: Date, now: Date) -> SchedulerOutcome {
        var outcome = SchedulerOutcome()
        releaseHeld(now: now, into: &outcome)
        for var record in records.values {
            guard let held = record.held, confirmedAt >= held.since else { continue }
            record.held = nil
            recordMissed(
                record, dueDate: dueDate(of: held.occurrence, for: record.definition), reason: .tooLate, occurrences: 1,
                now: now, into: &outcome)
            if Self.repeats(record.definition) {
                store(record)
                outcome.changedOwners.insert(record.owner)
            } else {
                remove(record.key)
                outcome.events.append(.removed(record.key))
                outcome.changedOwners.insert(record.owner)
            }
        }
        outcome.merge(evaluate(now: now))
        return outcome
    }

    /// Whether an alarm rings on several days (a weekly relative schedule).
    static func repeats(_ definition: AlarmDefinition) -> Bool {
        guard case .relative(let relative) = definition.schedule else { return false }
        return weekdays(of: relative) != nil
    }
}
