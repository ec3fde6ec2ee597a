import AlarmKitCore
import AlarmModel
import FoundationEssentials

extension AlarmScheduler {
    /// Gives one of `owner`'s alarms a new definition in place, under the same id: the device's
    /// extension to AlarmKit for editing an alarm (the control socket's `replace`).
    ///
    /// The alarm starts afresh as ``schedule(id:owner:definition:now:)`` would start it: the phase
    /// is the new definition's first (a timer counts down from `now`; an alarm waits for its first
    /// occurrence after `now`, today's included), it is enabled and skips nothing, and a snooze or
    /// pre-alert countdown of the old definition ends. It keeps its place in the lists (its
    /// creation date and sequence number), its app and how it wakes (``AlarmRecord/wake``).
    ///
    /// - Throws: ``AlarmOperationError/notFound(_:)`` (also for an id only another client uses),
    ///   ``AlarmOperationError/invalidConfiguration(_:)`` as `schedule` does, or an
    ///   ``AlarmChangeRefusal`` while the alarm is alerting (stop or snooze it first: a ringing alarm
    ///   is never silenced by an edit); nothing changes then.
    public mutating func replace(
        id: Alarm.ID, owner: ClientID, definition: AlarmDefinition, now: Date
    ) throws -> (Alarm, SchedulerOutcome) {
        try definition.validate()
        let key = AlarmKey(owner: owner, id: id)
        guard records[key] != nil else { throw AlarmOperationError.notFound(id) }
        let checkpoint = checkpoint(for: key)
        do {
            return try replaceCaughtUp(key, definition: definition, now: now)
        } catch {
            rollBack(to: checkpoint)
            throw error
        }
    }

    private mutating func replaceCaughtUp(
        _ key: AlarmKey, definition: AlarmDefinition, now: Date
    ) throws -> (Alarm, SchedulerOutcome) {
        var outcome = SchedulerOutcome()
        settle(key, now: now, into: &outcome)
        guard let old = records[key] else { throw AlarmOperationError.notFound(key.id) }
        guard !old.phase.isAlerting else {
            throw AlarmChangeRefusal("replace", alarmID: key.id, reason: "it is alerting (stop or snooze it first)")
        }
        let phase = try initialPhase(of: definition, now: now)
        var record = AlarmRecord(
            id: key.id, owner: key.owner, definition: definition, phase: phase, createdAt: old.createdAt,
            sequenceNumber: old.sequenceNumber)
        // Its intents still go to the app that scheduled it, and it wakes as its owner chose.
        record.app = old.app
        record.wake = old.wake
        store(record)
        outcome.events.append(.scheduled(key))
        if case .countdown(let countdown) = phase {
            outcome.events.append(.countdownStarted(key, fireDate: countdown.fireDate))
        }
        outcome.changedOwners.insert(key.owner)
        settle(key, now: now, into: &outcome)
        return (records[key]?.alarm ?? Alarm(id: key.id, schedule: definition.schedule,
                                             countdownDuration: definition.countdownDuration, state: .scheduled),
                outcome)
    }
}
