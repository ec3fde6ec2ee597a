import FoundationEssentials

/// Which ringing alarm the device presents first: the one on its display, which its STOP and
/// SNOOZE act on. One rule for every face of the clock (the display, the phone page), so that
/// each shows the same alarm and acts on the same one.
///
/// The newest alert comes first (a second alarm takes over the display from the first); of
/// alerts that began at the same instant, the one due later, then the one scheduled last, so the
/// order is reproducible.
public enum AlertPresentationOrder {
    /// Whether an alert that began at `lhs` is presented before one that began at `rhs`.
    public static func presentsFirst(
        _ lhs: (phase: AlertingPhase, sequenceNumber: UInt64), before rhs: (phase: AlertingPhase, sequenceNumber: UInt64)
    ) -> Bool {
        if lhs.phase.since != rhs.phase.since { return lhs.phase.since > rhs.phase.since }
        if lhs.phase.dueDate != rhs.phase.dueDate { return lhs.phase.dueDate > rhs.phase.dueDate }
        return lhs.sequenceNumber > rhs.sequenceNumber
    }

    /// The alerting records among `records`, the one presented first at the front.
    public static func alerting(_ records: some Sequence<AlarmRecord>) -> [AlarmRecord] {
        records.compactMap { record -> (record: AlarmRecord, phase: AlertingPhase)? in
            guard case .alerting(let phase) = record.phase else { return nil }
            return (record, phase)
        }
        .sorted { presentsFirst(($0.phase, $0.record.sequenceNumber), before: ($1.phase, $1.record.sequenceNumber)) }
        .map(\.record)
    }
}
