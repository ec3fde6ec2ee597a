import AlarmKit
import FoundationEssentials

/// Each alarm's record encoded as JSON, kept between saves so that a save re-encodes only the
/// alarms that changed and assembles the rest; and what has not been saved yet.
///
/// Encoding every record on every change made a durable write cost about 65 µs per alarm (73 ms
/// with 1,000 alarms); with the cache a snapshot costs one record's encoding plus copying bytes,
/// and a journal entry holds only the changed records' bytes. The assembled body decodes to
/// exactly the ``StoredState`` it stands for.
struct EncodedAlarmCache: Sendable {
    private var fragments: [AlarmKey: (sequenceNumber: UInt64, json: [UInt8])] = [:]
    /// Alarms changed (or removed) since the last durable save.
    private var unsavedIDs: Set<AlarmKey> = []
    /// Alarms loaded from the store and not encoded yet: a snapshot encodes them first.
    private var unencodedIDs: Set<AlarmKey> = []
    /// What the store holds, once known: a journal entry carries these only when they changed.
    private var savedMissedAlarms: [MissedAlarm]?
    private var savedAuthorizations: [AuthorizationRecord]?

    /// Re-encodes the alarms in `changed` as they are in `scheduler` (dropping removed ones).
    mutating func update(_ changed: Set<AlarmKey>, from scheduler: AlarmScheduler) throws {
        for key in changed {
            if let record = scheduler.record(for: key) {
                // JSONEncoder only for what the writer refuses, to throw its error.
                let json = try AlarmJSONWriter.json(of: record, dates: .sinceReferenceDate) ?? Array(JSONEncoder().encode(record))
                fragments[key] = (record.sequenceNumber, json)
            } else {
                fragments[key] = nil
            }
        }
        unsavedIDs.formUnion(changed)
        unencodedIDs.subtract(changed)
    }

    /// Alarms just loaded, as the store holds them: encoded when a snapshot needs them.
    mutating func markLoaded(_ keys: Set<AlarmKey>) {
        unencodedIDs.formUnion(keys)
    }

    /// The JSON of a ``StoredState`` whose alarms are the cached ones, after encoding those
    /// loaded and not encoded yet (as they are in `scheduler`).
    mutating func body(
        from scheduler: AlarmScheduler, missedAlarms: [MissedAlarm], authorizations: [AuthorizationRecord], savedAt: Date
    ) throws -> [UInt8] {
        if !unencodedIDs.isEmpty {
            let loaded = unencodedIDs
            try update(loaded, from: scheduler)
            // Encoding them is not a change: the store holds them already.
            unsavedIDs.subtract(loaded)
        }
        return try body(missedAlarms: missedAlarms, authorizations: authorizations, savedAt: savedAt)
    }

    /// The JSON of a ``StoredState`` whose alarms are the cached ones.
    func body(
        missedAlarms: [MissedAlarm], authorizations: [AuthorizationRecord], savedAt: Date
    ) throws -> [UInt8] {
        let encoder = JSONEncoder()
        var body: [UInt8] = []
        body.reserveCapacity(fragments.values.reduce(256) { $0 + $1.json.count + 1 })
        body += Array(#"{"savedAt":"#.utf8) + Array(try encoder.encode(savedAt))
        body += Array(#","authorizations":"#.utf8) + Array(try encoder.encode(authorizations))
        body += Array(#","scheduler":{"missedAlarms":"#.utf8) + Array(try encoder.encode(missedAlarms))
        body += Array(#","alarms":["#.utf8)
        // In creation order, as the scheduler's snapshot is, so the file is the same for the same state.
        appendJSON(of: fragments.values.sorted { $0.sequenceNumber < $1.sequenceNumber }, to: &body)
        body += Array("]}}".utf8)
        return body
    }

    /// The JSON of a ``StoreJournalEntry`` holding what changed since the last durable save.
    func journalEntry(
        missedAlarms: [MissedAlarm], authorizations: [AuthorizationRecord], savedAt: Date
    ) throws -> [UInt8] {
        let encoder = JSONEncoder()
        var upserted: [(sequenceNumber: UInt64, json: [UInt8])] = []
        var removed: [RemovedAlarm] = []
        for key in unsavedIDs {
            if let fragment = fragments[key] { upserted.append(fragment) } else { removed.append(RemovedAlarm(key)) }
        }
        var body: [UInt8] = Array(#"{"savedAt":"#.utf8) + Array(try encoder.encode(savedAt))
        body += Array(#","upserted":["#.utf8)
        appendJSON(of: upserted.sorted { $0.sequenceNumber < $1.sequenceNumber }, to: &body)
        // Sorted, so that the same change is the same bytes.
        removed.sort { ($0.owner?.rawValue ?? 0, $0.id.uuidString) < ($1.owner?.rawValue ?? 0, $1.id.uuidString) }
        body += Array(#"],"removed":"#.utf8) + Array(try encoder.encode(removed))
        if missedAlarms != savedMissedAlarms {
            body += Array(#","missedAlarms":"#.utf8) + Array(try encoder.encode(missedAlarms))
        }
        if authorizations != savedAuthorizations {
            body += Array(#","authorizations":"#.utf8) + Array(try encoder.encode(authorizations))
        }
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// Everything cached is durable now, with these missed alarms and authorizations.
    mutating func markSaved(missedAlarms: [MissedAlarm], authorizations: [AuthorizationRecord]) {
        unsavedIDs.removeAll(keepingCapacity: true)
        savedMissedAlarms = missedAlarms
        savedAuthorizations = authorizations
    }

    private func appendJSON(of fragments: [(sequenceNumber: UInt64, json: [UInt8])], to body: inout [UInt8]) {
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += fragment.json
        }
    }
}
