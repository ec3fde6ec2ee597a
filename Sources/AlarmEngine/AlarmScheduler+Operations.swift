import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials

extension AlarmScheduler {
    /// Adds an alarm for `owner`. Ids are the owner's own: another client's alarm with the same
    /// id is another alarm, and is neither touched nor revealed.
    ///
    /// - Returns: the alarm as it is after `now` has been applied (a timer is already counting
    ///   down; a fixed alarm up to the grace period in the past is already alerting).
    /// - Throws: ``AlarmOperationError/invalidConfiguration(_:)``, ``AlarmOperationError/duplicateID(_:)``
    ///   (an id `owner` already uses) or ``AlarmManager/AlarmError/maximumLimitReached`` (the
    ///   device's limit, or `owner`'s share of it); nothing
    ///   changes then.
    /// - Parameter app: the app of `owner`'s that schedules it, which its intents go to.
    public mutating func schedule(
        id: Alarm.ID, owner: ClientID, definition: AlarmDefinition, now: Date, app: String? = nil
    ) throws -> (Alarm, SchedulerOutcome) {
        try definition.validate()
        let key = AlarmKey(owner: owner, id: id)
        guard records[key] == nil else { throw AlarmOperationError.duplicateID(id) }
        guard records.count < policy.maximumAlarms,
              records.keys.lazy.filter({ $0.owner == owner }).count < policy.maximumAlarmsPerClient
        else { throw AlarmManager.AlarmError.maximumLimitReached }
        let phase = try initialPhase(of: definition, now: now)
        var record = AlarmRecord(
            id: id, owner: owner, definition: definition, phase: phase, createdAt: now, sequenceNumber: nextSequenceNumber)
        record.app = app
        store(record)
        var outcome = SchedulerOutcome()
        outcome.events.append(.scheduled(key))
        if case .countdown(let countdown) = phase {
            outcome.events.append(.countdownStarted(key, fireDate: countdown.fireDate))
        }
        outcome.changedOwners.insert(owner)
        settle(key, now: now, into: &outcome)
        // A fixed alarm due long ago was refused above, so the alarm still exists here.
        return (records[key]?.alarm ?? Alarm(id: id, schedule: definition.schedule,
                                             countdownDuration: definition.countdownDuration, state: .scheduled),
                outcome)
    }

    /// The phase a newly scheduled `definition` starts in at `now`: a timer counting down, an
    /// alarm scheduled for its first occurrence.
    /// - Throws: ``AlarmOperationError/invalidConfiguration(_:)`` for a `.fixed` date more than the
    ///   grace period in the past (while the clock is trusted).
    func initialPhase(of definition: AlarmDefinition, now: Date) throws(AlarmOperationError) -> AlarmPhase {
        switch definition.schedule {
        case nil:
            // validate() guarantees a timer has a preAlert.
            let duration = definition.preAlert ?? 0
            return .countdown(CountdownPhase(
                kind: .timer, startDate: now, previouslyElapsed: 0, total: duration, occurrence: nil))
        case .fixed(let date):
            if isClockTrusted, now.timeIntervalSince(date) > policy.missedAlarmGrace {
                throw AlarmOperationError.invalidConfiguration(
                    "schedule.fixed \(ISO8601.format(date, in: timeZone)) is more than the grace period in the past")
            }
            return .scheduled(.fixed(date))
        case .relative:
            return .scheduled(firstOccurrence(of: definition, now: now))
        }
    }

    /// Performs `command` on one of `owner`'s alarms, after bringing it up to `now`.
    ///
    /// AlarmKit's actions:
    /// - `cancel`: deletes it, in any state.
    /// - `stop`: alerting, counting down or paused; one-shots are deleted, repeating alarms move on.
    /// - `countdown`: alerting only; snoozes for `postAlert ?? preAlert`.
    /// - `pause`: counting down only. `resume`: paused only.
    ///
    /// The device's extensions (`disable`, `enable`, `skip`): see
    /// ``changeScheduleCaughtUp(_:key:now:)``. Asking for what already holds changes nothing.
    ///
    /// - Throws: ``AlarmOperationError/notFound(_:)`` (also for an id only another client uses:
    ///   the same error as for an unused one), ``AlarmOperationError/invalidTransition(_:action:from:)``,
    ///   ``AlarmOperationError/noCountdownDuration(_:)``, or for an extension a refusal naming the
    ///   reason; nothing changes then.
    public mutating func perform(
        _ command: AlarmCommand, id: Alarm.ID, owner: ClientID, now: Date
    ) throws -> SchedulerOutcome {
        let key = AlarmKey(owner: owner, id: id)
        guard records[key] != nil else { throw AlarmOperationError.notFound(id) }
        // Catching the alarm up to `now` comes first, so the command sees its real state; if the
        // command is then refused, the catch-up is undone too (its events would be lost with the
        // throw), and the next evaluate(now:) applies it with its events.
        let checkpoint = checkpoint(for: key)
        do {
            if let action = command.alarmKitAction {
                return try performCaughtUp(action, key: key, now: now)
            }
            return try changeScheduleCaughtUp(command, key: key, now: now)
        } catch {
            rollBack(to: checkpoint)
            throw error
        }
    }

    private mutating func performCaughtUp(
        _ action: AlarmAction, key: AlarmKey, now: Date
    ) throws(AlarmOperationError) -> SchedulerOutcome {
        let id = key.id, owner = key.owner
        var outcome = SchedulerOutcome()
        settle(key, now: now, into: &outcome)
        guard var record = records[key] else { throw .notFound(id) }
        let refused = AlarmOperationError.invalidTransition(id, action: action, from: record.phase.state)

        switch (action, record.phase) {
        case (.cancel, _):
            remove(key)
            outcome.events.append(.removed(key))
            outcome.changedOwners.insert(owner)
            return outcome

        case (.stop, .alerting), (.stop, .countdown), (.stop, .paused):
            outcome.events.append(.stopped(key))
            outcome.changedOwners.insert(owner)
            guard moveOn(&record, after: record.phase.occurrence, now: now, into: &outcome) else { return outcome }

        case (.countdown, .alerting(let alerting)):
            guard let duration = record.definition.postAlertCountdown else { throw .noCountdownDuration(id) }
            record.phase = .countdown(CountdownPhase(
                kind: .postAlert, startDate: now, previouslyElapsed: 0, total: duration, occurrence: alerting.occurrence))
            outcome.events.append(.countdownStarted(key, fireDate: now.addingTimeInterval(duration)))

        case (.pause, .countdown(let countdown)):
            let elapsed = countdown.previouslyElapsed + now.timeIntervalSince(countdown.startDate)
            record.phase = .paused(PausedPhase(
                kind: countdown.kind, previouslyElapsed: min(max(elapsed, 0), countdown.total),
                total: countdown.total, occurrence: countdown.occurrence))
            outcome.events.append(.paused(key))

        case (.resume, .paused(let paused)):
            // Once paused, a pre-alert countdown no longer ends at its occurrence's wall time: like a
            // timer, it counts the time that remains.
            let countdown = CountdownPhase(
                kind: paused.kind == .preAlert ? .timer : paused.kind, startDate: now,
                previouslyElapsed: paused.previouslyElapsed, total: paused.total, occurrence: paused.occurrence)
            record.phase = .countdown(countdown)
            outcome.events.append(.resumed(key, fireDate: countdown.fireDate))

        default:
            throw refused
        }
        outcome.changedOwners.insert(owner)
        store(record)
        settle(key, now: now, into: &outcome)
        return outcome
    }

    // MARK: - Undo, for changes that could not be made durable

    /// What ``rollBack(to:)`` needs to undo one operation on an alarm: a copy of the whole
    /// scheduler would cost a copy of every record per operation.
    public struct Checkpoint: Sendable {
        fileprivate let key: AlarmKey
        fileprivate let record: AlarmRecord?
        fileprivate let missedAlarms: [MissedAlarm]
    }

    /// Captures one alarm before an operation on it.
    public func checkpoint(for key: AlarmKey) -> Checkpoint {
        Checkpoint(key: key, record: records[key], missedAlarms: missedAlarms)
    }

    /// Undoes an operation whose result could not be stored, so a refused change leaves no trace.
    ///
    /// - Important: only valid right after the operation, with nothing else in between.
    public mutating func rollBack(to checkpoint: Checkpoint) {
        if let record = checkpoint.record {
            store(record)
        } else {
            remove(checkpoint.key)
        }
        missedAlarms = checkpoint.missedAlarms
    }
}
