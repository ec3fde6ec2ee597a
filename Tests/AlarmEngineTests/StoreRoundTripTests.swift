import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Testing

@testable import AlarmEngine

/// A whole state directory as alarmd wrote it at commit 7052f7e (before the domain model left the
/// wire module), in `Fixtures/store-7052f7e`: it loads, and every file's JSON re-encodes to the
/// same members and values, so a build that moves or renames the model's types keeps the store's
/// format.
///
/// The directory holds a snapshot of 16 changes (and its backup), a journal of 5 more, the history
/// and a waiting intent. Berlin, Monday 2026-06-01 05:02:10: the owner (uid 1000) has a weekly
/// "Gym" due today, a disabled one-time "Once", an everyday "Bed" skipping today, "Meds" snoozed
/// (a fixed alarm with a tint, metadata and a named sound), "Run" in its pre-alert countdown for
/// the app `runner`, a timer counting down and "Ringing" alerting, and missed "Early" (too late);
/// the stranger (1001) a paused timer, and an `open` intent of its stopped timer for the app `tea`.
///
/// Foundation's encoder writes an object's members in no fixed order (it differs between runs),
/// so files are compared as JSON values: the same members with the same values.
@Suite struct StoreRoundTripTests {
    static let fixture: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast()
        return parts.joined(separator: "/") + "/Fixtures/store-7052f7e"
    }()

    static func fixtureFile(_ name: String) throws -> [UInt8] {
        try #require(TestFiles.read(fixture + "/" + name), "fixture \(name)")
    }

    /// A copy of the fixture to load: loading may rewrite the store.
    static func copyOfFixture() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        for name in ["alarms.store", "alarms.store.backup", "alarms.journal", "history.jsonl", "intents.json"] {
            try TestFiles.write(try fixtureFile(name), to: directory.path + "/" + name)
        }
        return directory
    }

    static func json(_ bytes: some Sequence<UInt8>) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// The lines of a file, without their newlines.
    static func lines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(separator: UInt8(ascii: "\n"))
    }

    @Test func snapshotReencodesToTheSameJSON() throws {
        let bytes = try Self.fixtureFile("alarms.store")
        #expect(try Self.fixtureFile("alarms.store.backup") == bytes)
        let state = try AlarmStore.decode(bytes)
        let reencoded = try AlarmStore.encode(state)
        let body = { (framed: [UInt8]) in framed.drop { $0 != UInt8(ascii: "\n") }.dropFirst() }
        #expect(try Self.json(body(reencoded)) == Self.json(body(bytes)))
        #expect(state.scheduler.alarms.count == 6)
    }

    @Test func journalEntriesReencodeToTheSameJSON() throws {
        let lines = Self.lines(try Self.fixtureFile("alarms.journal"))
        #expect(lines.first.map { Array($0) + [UInt8(ascii: "\n")] } == StoreJournal.header)
        // After the header, each entry is a line `crc length` and a line of JSON.
        let bodies = stride(from: 2, to: lines.count, by: 2).map { lines[$0] }
        #expect(bodies.count == 5)
        for body in bodies {
            let entry = try JSONDecoder().decode(StoreJournalEntry.self, from: Data(body))
            #expect(try Self.json(JSONEncoder().encode(entry)) == Self.json(body))
        }
    }

    @Test func historyLinesReencodeToTheSameJSON() throws {
        let lines = Self.lines(try Self.fixtureFile("history.jsonl"))
        #expect(lines.count == 8)
        for line in lines {
            let entry = try JSONDecoder().decode(HistoryEntry.self, from: Data(line))
            #expect(try Self.json(JSONEncoder().encode(entry)) == Self.json(line))
        }
    }

    @Test func waitingIntentsReencodeToTheSameJSON() throws {
        let bytes = try Self.fixtureFile("intents.json")
        let stored = try IntentMailbox.fileDecoder().decode(IntentMailbox.Stored.self, from: Data(bytes))
        #expect(try Self.json(IntentMailbox.fileEncoder().encode(stored)) == Self.json(bytes))
        #expect(stored.deliveries.map(\.app) == ["tea"])
    }

    @Test func engineResumesFromTheDirectory() async throws {
        let directory = try Self.copyOfFixture()
        let loaded = AlarmStore(directory: directory.path, logger: EngineRig.logger).load()
        #expect(loaded.problems.isEmpty)
        #expect(loaded.unreadable.isEmpty)
        #expect(loaded.journalEntries == 5)

        let rig = try EngineRig(now: Fixture.at("2026-06-01T05:02:10+02:00"), directory: directory)
        let records = Dictionary(uniqueKeysWithValues: await rig.runtime.allRecords().map { ($0.key, $0) })
        func record(_ number: Int, of owner: ClientID = Fixture.owner) -> AlarmRecord? {
            records[AlarmKey(owner: owner, id: UUID(uuidString: "A00000\(number / 10)\(number % 10)-0000-4000-8000-0000000000\(number / 10)\(number % 10)")!)]
        }
        #expect(records.count == 8)
        #expect(record(1)?.phase == .scheduled(.day(CivilDate(year: 2026, month: 6, day: 1)!)))
        #expect(record(2)?.enabled == false)
        #expect(record(3)?.skippedDate == CivilDate(year: 2026, month: 6, day: 1))
        #expect(record(5)?.definition.sound == .named("birds.wav"))
        #expect(record(5)?.phase.isSnooze == true)
        #expect(record(6)?.app == "runner")
        #expect(record(8, of: Fixture.stranger)?.phase.state == .paused)
        #expect(record(9)?.phase.state == .countdown)
        #expect(record(10)?.phase.state == .alerting)
        #expect(await rig.runtime.missedAlarms.map(\.title) == ["Early"])
        #expect(await rig.runtime.history(for: nil).map(\.kind) == [.disabled, .skipped, .missed, .rang, .stopped, .rang, .snoozed, .rang])
        #expect(rig.runtime.intents.waiting(for: Fixture.stranger).map(\.intent.name) == ["open"])
    }
}
