import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials

/// The engine's functional core: every alarm, its state machine and its next deadline.
///
/// A value type with no clock, no I/O and no logging. Every input carries `now`; every call returns
/// what happened as a ``SchedulerOutcome``, which the runtime logs, persists and publishes. Calling
/// ``evaluate(now:)`` early, late or twice is harmless: it only does what is due at `now`, once.
/// Its caller arms one timer for ``nextDeadline``.
public struct AlarmScheduler: Sendable {
    public internal(set) var policy: EnginePolicy
    /// The zone relative alarms are resolved in.
    public internal(set) var timeZone: TimeZoneRules
    /// While `false`, no scheduled alarm starts: the wall clock may be bogus. Countdowns, which
    /// measure elapsed time, keep running.
    public internal(set) var isClockTrusted: Bool
    /// Alarms that did not ring or rang unanswered, oldest first, until acknowledged.
    public internal(set) var missedAlarms: [MissedAlarm] = []

    /// Every alarm, by owner and id: each client's ids are its own.
    var records: [AlarmKey: AlarmRecord] = [:]
    /// When ``evaluate(now:)`` next has work for each alarm; alarms without any are absent.
    var deadlines: [AlarmKey: Date] = [:]
    private var highestSequenceNumber: UInt64 = 0
    /// Alarms stored or removed since the last ``clearChangedIDs()``: the next journal entry's.
    public private(set) var changedIDs: Set<AlarmKey> = []

    /// Restores the scheduler from a snapshot, without evaluating anything: call
    /// ``evaluate(now:)`` next, which resumes every alarm in wall time.
    public init(
        policy: EnginePolicy,
        timeZone: TimeZoneRules,
        clockTrusted: Bool,
        snapshot: SchedulerSnapshot = SchedulerSnapshot()
    ) {
        self.policy = policy
        self.timeZone = timeZone
        self.isClockTrusted = clockTrusted
        self.missedAlarms = snapshot.missedAlarms
        for var record in snapshot.alarms {
            // Under a trusted clock every stored date is read as real; under an untrusted one the
            // stored flags say which dates came from an untrusted clock before the restart.
            if clockTrusted { record.datesFromUntrustedClock = false }
            store(record, writtenNow: false)
        }
    }

    // MARK: - Reading

    /// The earliest instant at which ``evaluate(now:)`` has something to do.
    public var nextDeadline: Date? { deadlines.values.min() }

    /// The alarm to settle first: the earliest deadline and, of equal ones, the alarm scheduled
    /// first, so that alarms due together act in the same order on every run.
    var earliestDeadline: (key: AlarmKey, deadline: Date)? {
        deadlines.min { lhs, rhs in
            if lhs.value != rhs.value { return lhs.value < rhs.value }
            return (records[lhs.key]?.sequenceNumber ?? 0) < (records[rhs.key]?.sequenceNumber ?? 0)
        }.map { ($0.key, $0.value) }
    }

    /// How many alarms exist, all clients together.
    public var alarmCount: Int { records.count }

    public func record(for key: AlarmKey) -> AlarmRecord? { records[key] }

    /// A client's alarms, oldest first. Keys are sorted and records read in place: iterating or
    /// sorting the records copies each one with its references, milliseconds at 1,000 alarms.
    public func alarms(of owner: ClientID) -> [Alarm] {
        records.keys.filter { $0.owner == owner }
            .map { (key: $0, sequenceNumber: records[$0]?.sequenceNumber ?? 0) }
            .sorted { $0.sequenceNumber < $1.sequenceNumber }
            .compactMap { records[$0.key]?.alarm }
    }

    /// The alerting alarms, the one to present first at the front, by ``AlertPresentationOrder``
    /// (the rule the phone page follows too).
    public var alertingOrder: [AlarmKey] {
        let alerting = records.keys.compactMap { key -> (key: AlarmKey, phase: AlertingPhase, sequenceNumber: UInt64)? in
            guard let record = records[key], case .alerting(let phase) = record.phase else { return nil }
            return (key, phase, record.sequenceNumber)
        }
        return alerting.sorted {
            AlertPresentationOrder.presentsFirst(($0.phase, $0.sequenceNumber), before: ($1.phase, $1.sequenceNumber))
        }.map(\.key)
    }

    /// What the device shows for an alarm now; `nil` while it is merely scheduled.
    public func presentationState(for key: AlarmKey) -> AlarmPresentationState? {
        guard let record = records[key] else { return nil }
        let id = key.id
        switch record.phase {
        case .scheduled:
            return nil
        case .alerting(let alerting):
            return AlarmPresentationState(alarmID: id, mode: .alert(.init(time: alerting.time)))
        case .countdown(let countdown):
            return AlarmPresentationState(alarmID: id, mode: .countdown(.init(
                totalCountdownDuration: countdown.total,
                previouslyElapsedDuration: countdown.previouslyElapsed,
                startDate: countdown.startDate,
                fireDate: countdown.fireDate)))
        case .paused(let paused):
            return AlarmPresentationState(alarmID: id, mode: .paused(.init(
                totalCountdownDuration: paused.total,
                previouslyElapsedDuration: paused.previouslyElapsed)))
        }
    }

    /// Everything needed to rebuild the scheduler, oldest first.
    public var snapshot: SchedulerSnapshot {
        SchedulerSnapshot(alarms: records.values.sorted(by: Self.creationOrder), missedAlarms: missedAlarms)
    }

    static func creationOrder(_ lhs: AlarmRecord, _ rhs: AlarmRecord) -> Bool {
        lhs.sequenceNumber < rhs.sequenceNumber
    }

    /// The sequence number the next scheduled alarm gets.
    var nextSequenceNumber: UInt64 { highestSequenceNumber + 1 }

    // MARK: - Storage and indexes

    /// Forgets which alarms changed, once the runtime has taken them for a save.
    public mutating func clearChangedIDs() {
        changedIDs.removeAll(keepingCapacity: true)
    }

    /// Inserts or replaces a record and its deadline. The only writer of `records`.
    /// `writtenNow` is false only for records loaded from the store, whose dates are not new.
    mutating func store(_ record: AlarmRecord, writtenNow: Bool = true) {
        var record = record
        let key = record.key
        if writtenNow, !isClockTrusted, record.phase.hasWallClockDates, records[key]?.phase != record.phase {
            record.datesFromUntrustedClock = true
        }
        records[key] = record
        changedIDs.insert(key)
        highestSequenceNumber = max(highestSequenceNumber, record.sequenceNumber)
        deadlines[key] = deadline(of: record)
    }

    /// Deletes a record and its deadline.
    mutating func remove(_ key: AlarmKey) {
        guard records.removeValue(forKey: key) != nil else { return }
        changedIDs.insert(key)
        deadlines[key] = nil
    }

    /// Recomputes every deadline, after the zone, the trust in the clock or the clock itself changed.
    mutating func reindexAll() {
        deadlines = records.compactMapValues { deadline(of: $0) }
    }

    /// When ``evaluate(now:)`` next has work for this alarm: its phase's, or the end of the day
    /// it skips, when the skip is forgotten.
    private func deadline(of record: AlarmRecord) -> Date? {
        let deadline: Date?
        switch record.phase {
        case .scheduled(nil), .paused:
            deadline = nil
        case .scheduled(let occurrence?) where record.held?.occurrence == occurrence:
            deadline = nil  // an alarm that rings once, waiting for its held occurrence's fate
        case .scheduled(let occurrence?):
            deadline = isClockTrusted
                ? dueDate(of: occurrence, for: record.definition).addingTimeInterval(-(record.definition.preAlert ?? 0)) : nil
        case .countdown(let countdown):
            deadline = countdown.fireDate
        case .alerting(let alerting):
            deadline = policy.autoSilence > 0 ? alerting.since.addingTimeInterval(policy.autoSilence) : nil
        }
        guard let skipEnd = skipEnd(of: record) else { return deadline }
        return min(deadline ?? skipEnd, skipEnd)
    }

    /// The local midnight ending the day an alarm skips; `nil` without a skip, or while the clock
    /// is untrusted (a bogus clock must not make it forget the skip).
    func skipEnd(of record: AlarmRecord) -> Date? {
        guard isClockTrusted, let skipped = record.skippedDate else { return nil }
        return timeZone.instant(for: LocalDateTime(date: skipped.adding(days: 1), time: .midnight))
    }

    /// The instant an occurrence is due, resolved in the current zone with the DST policy.
    func dueDate(of occurrence: Occurrence, for definition: AlarmDefinition) -> Date {
        switch occurrence {
        case .fixed(let date):
            return date
        case .day(let day):
            return timeZone.instant(for: LocalDateTime(date: day, time: Self.civilTime(of: definition)))
        }
    }

    /// The wall time of a relative schedule (midnight for anything else, which never asks).
    static func civilTime(of definition: AlarmDefinition) -> CivilTime {
        guard case .relative(let relative) = definition.schedule,
              let time = CivilTime(hour: relative.time.hour, minute: relative.time.minute)
        else { return CivilTime(hour: 0, minute: 0)! }
        return time
    }
}

/// The scheduler's durable state: every alarm and the missed-alarm records.
public struct SchedulerSnapshot: Codable, Hashable, Sendable {
    public var alarms: [AlarmRecord]
    public var missedAlarms: [MissedAlarm]

    public init(alarms: [AlarmRecord] = [], missedAlarms: [MissedAlarm] = []) {
        self.alarms = alarms
        self.missedAlarms = missedAlarms
    }
}
