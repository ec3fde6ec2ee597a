import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Glibc
import Logging
import Testing

@testable import AlarmEngine

/// The store's journal: one entry per change, replayed at start, cut after a torn append, kept
/// aside when damaged, and emptied by snapshots without losing or repeating anything.
@Suite struct StoreJournalTests {
    static let silent = Logger(label: "store-journal-test", factory: { _ in SwiftLogNoOpLogHandler() })
    static let header = Array("alarmd-journal 1\n".utf8)

    static func runtime(in directory: String, snapshotEvery: Int = 64) throws -> AlarmRuntime {
        try AlarmRuntime(
            configuration: .init(clockTrust: .always, storeDirectory: directory, storeSnapshotEvery: snapshotEvery),
            clock: ManualWallClock(now: AlarmStoreTests.now), timeZones: ManualTimeZoneProvider(Fixture.berlin),
            authorizer: FixedAuthorization(.authorized), logger: silent)
    }

    /// Schedules `count` timers and returns the runtime and the acknowledged list.
    static func scheduled(_ count: Int, in directory: String, snapshotEvery: Int = 64) async throws -> (AlarmRuntime, [Alarm]) {
        let runtime = try runtime(in: directory, snapshotEvery: snapshotEvery)
        for minutes in 1...count {
            _ = try await runtime.schedule(id: Alarm.ID(), definition: Fixture.timer(Double(minutes) * 60), client: Fixture.owner)
        }
        return (runtime, await runtime.alarms(for: Fixture.owner))
    }

    static func journal(in directory: String) -> StoreJournal {
        StoreJournal(path: directory + "/alarms.journal", directory: directory, files: .system)
    }

    @Test func eachChangeIsOneJournalEntryAndARestartReplaysThem() async throws {
        let scratch = try TemporaryDirectory()
        let (runtime, acknowledged) = try await Self.scheduled(3, in: scratch.path)
        _ = try await runtime.perform(.pause, id: acknowledged[0].id, client: Fixture.owner)
        let expected = await runtime.alarms(for: Fixture.owner)

        #expect(access(scratch.path + "/alarms.store", F_OK) != 0, "no snapshot was written for a change")
        let contents = try Self.journal(in: scratch.path).read()
        #expect(contents.damage == nil)
        // The client's authorization (asked at its first schedule), then one entry per change.
        #expect(contents.entries.count == 5)
        #expect(contents.entries.allSatisfy { $0.authorizations == [AuthorizationRecord(client: Fixture.owner, state: .authorized)] })
        #expect(contents.entries.map(\.upserted.count) == [0, 1, 1, 1, 1], "each entry holds only the changed alarm")

        let loaded = AlarmStore(directory: scratch.path, logger: Self.silent).load()
        #expect(loaded.journalEntries == 5 && loaded.problems.isEmpty)
        #expect(await (try Self.runtime(in: scratch.path)).alarms(for: Fixture.owner) == expected)
    }

    @Test func aSnapshotIsWrittenAfterTheConfiguredNumberOfChangesAndEmptiesTheJournal() async throws {
        let scratch = try TemporaryDirectory()
        // Four entries: the authorization and three alarms; the fourth writes the snapshot.
        let (runtime, acknowledged) = try await Self.scheduled(3, in: scratch.path, snapshotEvery: 4)

        let snapshot = try AlarmStore.decode(try #require(TestFiles.read(scratch.path + "/alarms.store")))
        #expect(snapshot.scheduler.alarms.map(\.alarm) == acknowledged)
        #expect(TestFiles.read(scratch.path + "/alarms.journal") == Self.header)
        #expect(TestFiles.read(scratch.path + "/alarms.store.backup") == TestFiles.read(scratch.path + "/alarms.store"))

        // Later changes go to the journal again, on top of the snapshot.
        try await runtime.perform(.cancel, id: acknowledged[1].id, client: Fixture.owner)
        #expect(await (try Self.runtime(in: scratch.path)).alarms(for: Fixture.owner) == [acknowledged[0], acknowledged[2]])
    }

    @Test(arguments: [
        ("a header cut short", Array("1f3a".utf8)),
        ("a body cut short", Array("1f3a09bc 400\n{\"savedAt\":7".utf8)),
        ("a whole entry with a bad checksum", Array("0 2\n{}\n".utf8)),
        ("zeros where the data did not reach the disk", [UInt8](repeating: 0, count: 40)),
    ])
    func aTornLastEntryIsDroppedAndCutOff(_ kind: String, _ tail: [UInt8]) async throws {
        let scratch = try TemporaryDirectory()
        let (_, acknowledged) = try await Self.scheduled(2, in: scratch.path)
        let path = scratch.path + "/alarms.journal"
        let intact = try #require(TestFiles.read(path))
        try TestFiles.write(intact + tail, to: path)

        let loaded = AlarmStore(directory: scratch.path, logger: Self.silent).load()
        #expect(loaded.problems.isEmpty, "a torn append is not damage: \(kind)")
        #expect(loaded.state?.scheduler.alarms.map(\.alarm) == acknowledged)
        #expect(TestFiles.read(path) == intact, "the torn tail was cut, so the next append follows a whole entry")

        let restarted = try Self.runtime(in: scratch.path)
        _ = try await restarted.schedule(id: Alarm.ID(), definition: Fixture.timer(30), client: Fixture.owner)
        #expect(await (try Self.runtime(in: scratch.path)).alarms(for: Fixture.owner).count == 3)
    }

    @Test func aDamagedEntryWithMoreAfterItIsKeptAsideAndTheEntriesBeforeItAreUsed() async throws {
        let scratch = try TemporaryDirectory()
        let (_, acknowledged) = try await Self.scheduled(3, in: scratch.path)
        let path = scratch.path + "/alarms.journal"
        var bytes = try #require(TestFiles.read(path))
        // Entry 3 (the second alarm) starts after the header line and two entries of two lines.
        let newlines = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\n") }
        bytes[newlines[5] + 5] ^= 0x20
        try TestFiles.write(bytes, to: path)

        let loaded = AlarmStore(directory: scratch.path, logger: Self.silent).load()
        #expect(loaded.problems.count == 1)
        #expect(loaded.problems.first?.contains("entry 3") == true)
        #expect(loaded.state?.scheduler.alarms.map(\.alarm) == [acknowledged[0]])
        #expect(TestFiles.names(in: scratch.path).contains { $0.hasPrefix("alarms.journal.bad-corrupt-") })
        #expect(access(path, F_OK) != 0, "the damaged journal is never written to again")
    }

    @Test func aJournalWithABadHeaderIsKeptAside() async throws {
        let scratch = try TemporaryDirectory()
        _ = try await Self.scheduled(1, in: scratch.path)
        let path = scratch.path + "/alarms.journal"
        let bytes = try #require(TestFiles.read(path))
        try TestFiles.write(Array("alarmd-journal 2\n".utf8) + bytes.dropFirst(Self.header.count), to: path)

        let loaded = AlarmStore(directory: scratch.path, logger: Self.silent).load()
        #expect(loaded.problems.count == 1)
        #expect(loaded.state == nil)
        #expect(TestFiles.names(in: scratch.path).contains { $0.hasPrefix("alarms.journal.bad-corrupt-") })
    }

    /// Two clients may use one id: a removal names the owner, so replaying it removes that
    /// client's alarm and not the other's.
    @Test func aRemovalNamesTheOwnerSoAnotherClientsAlarmWithTheSameIDStays() async throws {
        let scratch = try TemporaryDirectory()
        let runtime = try Self.runtime(in: scratch.path)
        let shared = Alarm.ID()
        _ = try await runtime.schedule(id: shared, definition: Fixture.timer(600), client: Fixture.owner)
        _ = try await runtime.schedule(id: shared, definition: Fixture.alarm(7, 0), client: Fixture.stranger)
        try await runtime.perform(.cancel, id: shared, client: Fixture.stranger)
        let last = try #require(try Self.journal(in: scratch.path).read().entries.last)
        #expect(last.removed == [RemovedAlarm(AlarmKey(owner: Fixture.stranger, id: shared))])
        let journal = String(decoding: TestFiles.read(scratch.path + "/alarms.journal") ?? [], as: UTF8.self)
        #expect(journal.contains(#""owner":1001"#) && journal.contains(#""removed":[{"#))

        let restarted = try Self.runtime(in: scratch.path)
        #expect(await restarted.alarms(for: Fixture.owner).map(\.id) == [shared])
        #expect(await restarted.alarms(for: Fixture.stranger).isEmpty)
        try await restarted.writeSnapshot()
        let fromSnapshot = try Self.runtime(in: scratch.path)
        #expect(await fromSnapshot.alarms(for: Fixture.owner) == restarted.alarms(for: Fixture.owner))
        #expect(await fromSnapshot.alarms(for: Fixture.stranger).isEmpty)
    }

    /// A store written while ids were unique on the device loads unchanged: its journal's
    /// removals name no owner and apply to the one alarm that had the id then. It is rewritten
    /// as a snapshot at the first start, so they are never replayed over a state in which two
    /// clients use one id.
    @Test func aStoreWrittenWhileIDsWereUniqueOnTheDeviceLoadsUnchanged() async throws {
        let scratch = try TemporaryDirectory()
        let fixture = StoreWrittenBeforeScopedIDs.self
        try TestFiles.write(fixture.snapshot, to: scratch.path + "/alarms.store")
        try TestFiles.write(fixture.snapshot, to: scratch.path + "/alarms.store.backup")
        try TestFiles.write(fixture.journal, to: scratch.path + "/alarms.journal")
        let loaded = AlarmStore(directory: scratch.path, logger: Self.silent).load()
        #expect(loaded.problems.isEmpty)
        #expect(loaded.journalEntries == 3)
        #expect(loaded.journalHasRemovalsWithoutOwner)

        let runtime = try Self.runtime(in: scratch.path)
        #expect(await runtime.alarms(for: Fixture.owner).map(\.id) == [fixture.weekly, fixture.ownersTimer])
        #expect(await runtime.alarms(for: Fixture.owner).map(\.state) == [.scheduled, .countdown])
        #expect(await runtime.alarms(for: Fixture.stranger).map(\.id) == [fixture.strangersTimer])
        #expect(await runtime.alarms(for: Fixture.stranger).map(\.state) == [.paused])
        #expect(await runtime.allAuthorizations() == [Fixture.owner: .authorized, Fixture.stranger: .authorized])
        // Rewritten at once: the journal is empty, and the snapshot holds the same alarms.
        #expect(try Self.journal(in: scratch.path).read().entries.isEmpty)
        let rewritten = AlarmStore(directory: scratch.path, logger: Self.silent).load()
        #expect(rewritten.journalEntries == 0 && !rewritten.journalHasRemovalsWithoutOwner)
        #expect(rewritten.state?.scheduler.alarms.map(\.key) == [
            AlarmKey(owner: Fixture.stranger, id: fixture.strangersTimer), AlarmKey(owner: Fixture.owner, id: fixture.weekly),
            AlarmKey(owner: Fixture.owner, id: fixture.ownersTimer),
        ])

        // From now on ids are each client's own, and a restart keeps both alarms with one id.
        _ = try await runtime.schedule(id: fixture.weekly, definition: Fixture.timer(60), client: Fixture.stranger)
        let restarted = try Self.runtime(in: scratch.path)
        #expect(await restarted.alarms(for: Fixture.stranger).map(\.id) == [fixture.strangersTimer, fixture.weekly])
        #expect(await restarted.alarms(for: Fixture.owner).map(\.id) == [fixture.weekly, fixture.ownersTimer])
    }

    /// A crash between a snapshot and the journal's reset leaves entries the snapshot already
    /// holds: applying them again changes nothing, even an alarm removed and scheduled again.
    @Test func entriesReplayedOverASnapshotThatHoldsThemChangeNothing() async throws {
        let scratch = try TemporaryDirectory()
        let (runtime, acknowledged) = try await Self.scheduled(3, in: scratch.path)
        let reused = acknowledged[1].id
        try await runtime.perform(.cancel, id: reused, client: Fixture.owner)
        _ = try await runtime.schedule(id: reused, definition: Fixture.timer(3_600), client: Fixture.owner)
        try await runtime.perform(.pause, id: acknowledged[2].id, client: Fixture.owner)
        let path = scratch.path + "/alarms.journal"
        let journal = try #require(TestFiles.read(path))
        try await runtime.writeSnapshot()
        let snapshot = AlarmStore(directory: scratch.path, logger: Self.silent).load().state
        try TestFiles.write(journal, to: path)

        let loaded = AlarmStore(directory: scratch.path, logger: Self.silent).load()
        #expect(loaded.journalEntries == 7)
        #expect(loaded.state?.scheduler == snapshot?.scheduler)
        #expect(loaded.state?.authorizations == snapshot?.authorizations)
    }

    @Test func aShutdownWritesASnapshotSoTheNextStartReadsOneFile() async throws {
        let scratch = try TemporaryDirectory()
        let (runtime, acknowledged) = try await Self.scheduled(2, in: scratch.path)
        let engine = Task { await runtime.run() }
        engine.cancel()
        await engine.value

        #expect(TestFiles.read(scratch.path + "/alarms.journal") == Self.header)
        let loaded = AlarmStore(directory: scratch.path, logger: Self.silent).load()
        #expect(loaded.journalEntries == 0)
        #expect(loaded.state?.scheduler.alarms.map(\.alarm) == acknowledged)
    }
}
