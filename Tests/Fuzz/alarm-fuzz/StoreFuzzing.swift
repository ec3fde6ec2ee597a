import AlarmProtocol
import AlarmTime
import FoundationEssentials

@testable import AlarmEngine

/// The `store` target: an input is a store file (``AlarmStore/decode(_:)``), the JSON body of
/// one with a valid header and checksum (as if the daemon had written it), or a journal entry;
/// whatever decodes is restored as `AlarmRuntime` restores it at start.
///
/// Invariants: a bad file is a ``AlarmStore/DecodingProblem``; the scheduler restores any
/// decoded state; ``AlarmScheduler/evaluate(now:)`` is idempotent; what it leaves encodes and
/// decodes back to the same state.
enum StoreFuzzing {
    /// A rule with daylight saving time, so restored alarms meet gaps and repeated hours.
    static let berlin = try? TimeZoneRules(posix: "CET-1CEST,M3.5.0,M10.5.0/3")
    /// 2026-06-01T00:00:00Z.
    static let fixedNow = Date(timeIntervalSince1970: 1_780_272_000)

    static func run(_ bytes: [UInt8]) {
        var random = FuzzRandom(seed: bytes)
        _ = try? AlarmStore.decode(bytes)
        if let state = try? AlarmStore.decode(AlarmStore.frame(bytes)) {
            restore(state, random: &random)
        }
        if let entry = try? JSONDecoder().decode(StoreJournalEntry.self, from: Data(bytes)) {
            let empty = StoredState(savedAt: Date(timeIntervalSince1970: 0))
            restore(StoreJournalEntry.apply([entry], to: empty), random: &random)
        }
    }

    /// `AlarmRuntime.init`'s start: a scheduler from the snapshot, evaluated now, then saved.
    static func restore(_ state: StoredState, random: inout FuzzRandom) {
        let zone = random.next() % 2 == 0 ? TimeZoneRules.utc : berlin ?? .utc
        var scheduler = AlarmScheduler(policy: .default, timeZone: zone, clockTrusted: random.next() % 4 != 0, snapshot: state.scheduler)
        let candidates = [fixedNow, state.savedAt, state.savedAt.addingTimeInterval(86_400 * Double(random.next(in: 1...400)))]
        let now = candidates[random.next(in: 0...2)]
        _ = scheduler.evaluate(now: now)
        let again = scheduler.evaluate(now: now)
        fuzzCheck(!again.hasChanges && again.events.isEmpty, "a second evaluate at \(now) changed something: \(again.events)")
        let saved = StoredState(scheduler: scheduler.snapshot, authorizations: state.authorizations, savedAt: now)
        do {
            let bytes = try AlarmStore.encode(saved)
            fuzzCheck(try AlarmStore.decode(bytes) == saved, "a saved state reads back differently")
        } catch {
            fuzzCheck(false, "a restored state cannot be saved and read back: \(error)")
        }
    }
}
