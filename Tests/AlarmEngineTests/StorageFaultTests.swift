import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import FoundationEssentials
import Glibc
import InMemoryLogging
import Logging
import Testing

@testable import AlarmEngine

/// A full or read-only disk never keeps an alarm ringing: silencing takes effect in memory, is
/// written once storage works, and the fault is shown and logged once. A state file that cannot
/// be read never stops the engine from starting.
@Suite(.timeLimit(.minutes(5))) struct StorageFaultTests {
    static let sixFiftyNine = Fixture.at("2026-11-23T06:59:00+01:00")

    /// Makes every save fail for real, also as root: a directory where the journal is appended,
    /// and one where a snapshot writes its temporary file.
    struct BlockedStorage {
        let directory: String
        var journal: String { directory + "/alarms.journal" }
        var temporary: String { directory + "/alarms.store.tmp" }

        init(_ directory: String) {
            self.directory = directory
            rename(journal, journal + ".moved")
            mkdir(journal, 0o700)
            mkdir(temporary, 0o700)
        }

        func unblock() {
            rmdir(temporary)
            rmdir(journal)
            rename(journal + ".moved", journal)
        }
    }

    struct Rig {
        let directory: TemporaryDirectory
        let clock = ManualWallClock(now: StorageFaultTests.sixFiftyNine)
        let log = InMemoryLogHandler()
        let runtime: AlarmRuntime
        /// Rings at 07:00, a minute after the rig's start.
        let alarm = Alarm.ID()

        init(postAlert: TimeInterval? = 540) async throws {
            directory = try TemporaryDirectory()
            runtime = try Self.runtime(in: directory.path, clock: clock, log: log)
            _ = try await runtime.schedule(
                id: alarm, definition: Fixture.fixed(StorageFaultTests.sixFiftyNine.addingTimeInterval(60), postAlert: postAlert),
                client: Fixture.owner)
            clock.advance(by: 60)
            await runtime.catchUpWithClock()
            await runtime.settleStore()
        }

        static func runtime(in directory: String, clock: ManualWallClock, log: InMemoryLogHandler) throws -> AlarmRuntime {
            var logger = Logger(label: "alarmd.engine", factory: { _ in log })
            logger.logLevel = .info
            return try AlarmRuntime(
                configuration: .init(clockTrust: .always, storeDirectory: directory), clock: clock,
                timeZones: ManualTimeZoneProvider(Fixture.berlin), authorizer: FixedAuthorization(.authorized),
                logger: logger)
        }

        /// The process starts again on the same directory (after a crash, nothing more is written).
        func restarted() throws -> AlarmRuntime {
            try Self.runtime(in: directory.path, clock: clock, log: InMemoryLogHandler())
        }

        func states() async -> [Alarm.State] {
            await runtime.alarms(for: Fixture.owner).map(\.state)
        }

        func count(_ message: String) -> Int {
            log.entries.filter { "\($0.message)".hasPrefix(message) }.count
        }

        /// Lets the storage retry interval pass and the engine wake for it, as its timer would.
        func passRetryInterval() async {
            clock.advance(by: 30)
            await runtime.catchUpWithClock()
            await runtime.settleStore()
        }
    }

    enum Silencing: CaseIterable, CustomTestStringConvertible {
        case stopByClient, snoozeByClient, cancelByClient, stopAtDevice, snoozeAtDevice

        var action: AlarmAction {
            switch self {
            case .stopByClient, .stopAtDevice: .stop
            case .snoozeByClient, .snoozeAtDevice: .countdown
            case .cancelByClient: .cancel
            }
        }

        var expected: [Alarm.State] { action == .countdown ? [.countdown] : [] }

        func perform(on rig: Rig) async throws {
            switch self {
            case .stopByClient, .snoozeByClient, .cancelByClient:
                try await rig.runtime.perform(AlarmCommand(action), id: rig.alarm, client: Fixture.owner)
            case .stopAtDevice, .snoozeAtDevice:
                try await rig.runtime.press(action == .countdown ? .secondary : .stop, on: AlarmKey(owner: Fixture.owner, id: rig.alarm))
            }
        }

        var testDescription: String { "\(self)" }
    }

    @Test(arguments: Silencing.allCases)
    func silencingARingingAlarmTakesEffectWhenTheStoreCannotBeWritten(_ silencing: Silencing) async throws {
        let rig = try await Rig()
        #expect(await rig.states() == [.alerting])
        let blocked = BlockedStorage(rig.directory.path)

        try await silencing.perform(on: rig)
        #expect(await rig.states() == silencing.expected)
        let snapshot = await rig.runtime.deviceSnapshot()
        #expect(snapshot.alerting.isEmpty, "the device stops ringing")
        #expect(snapshot.storage.fault?.errno == EISDIR)
        #expect(snapshot.storage.hasUnsavedChanges)
        #expect(snapshot.storage.displayText == "Disk: EISDIR")

        // Written once storage works again, at the next retry.
        blocked.unblock()
        await rig.passRetryInterval()
        #expect(await rig.runtime.storageHealth == StorageHealth())
        let restarted = try rig.restarted()
        #expect(await restarted.alarms(for: Fixture.owner).map(\.state) == silencing.expected)
    }

    @Test func otherChangesAreRefusedMeanwhileAndTheFaultIsLoggedOnceAndItsEndOnce() async throws {
        let rig = try await Rig()
        let quiet = Alarm.ID()
        _ = try await rig.runtime.schedule(id: quiet, definition: Fixture.timer(3_600), client: Fixture.owner)
        let blocked = BlockedStorage(rig.directory.path)
        try await rig.runtime.perform(.stop, id: rig.alarm, client: Fixture.owner)
        await AlarmStoreTests.expectStorageFailure {
            try await rig.runtime.perform(.cancel, id: quiet, client: Fixture.owner)
        }
        await AlarmStoreTests.expectStorageFailure {
            _ = try await rig.runtime.schedule(id: Alarm.ID(), definition: Fixture.timer(60), client: Fixture.owner)
        }
        #expect(await rig.states() == [.countdown], "only the quiet timer, still counting down")
        for _ in 0..<5 { await rig.passRetryInterval() }
        #expect(await rig.runtime.storageHealth.fault != nil)
        #expect(rig.count("Alarm store cannot be written") == 1, "once, not per retry")

        blocked.unblock()
        await rig.passRetryInterval()
        for _ in 0..<2 { await rig.passRetryInterval() }
        #expect(rig.count("Alarm store can be written again") == 1)
        #expect(await rig.runtime.nextDeadline == Fixture.at("2026-11-23T08:00:00+01:00"), "no retries once it works")
        try await rig.runtime.perform(.cancel, id: quiet, client: Fixture.owner)
        #expect(await rig.states().isEmpty)
    }

    @Test func theEngineTimerWakesForTheRetry() async throws {
        let rig = try await Rig()
        let blocked = BlockedStorage(rig.directory.path)
        try await rig.runtime.perform(.stop, id: rig.alarm, client: Fixture.owner)
        let retryAt = rig.clock.now.addingTimeInterval(30)
        #expect(await rig.runtime.nextDeadline == retryAt)
        blocked.unblock()
        let engine = Task { await rig.runtime.run() }
        defer { engine.cancel() }
        await rig.clock.waitForSleeper(until: retryAt)
        var snapshots = rig.runtime.deviceSnapshots().makeAsyncIterator()
        rig.clock.advance(by: 30)
        while let snapshot = await snapshots.next(), snapshot.storage.fault != nil {}
        #expect(await rig.runtime.storageHealth == StorageHealth())
        let restarted = try rig.restarted()
        #expect(await restarted.alarms(for: Fixture.owner).isEmpty)
    }

    /// Decided: what a crash loses is the silence, not the alarm. The store still says it rings,
    /// so after the restart it rings again (within auto-silence) and STOP silences it again.
    @Test func aCrashBeforeTheSilenceIsWrittenRingsAgainAndStopStillWorks() async throws {
        let rig = try await Rig()
        let blocked = BlockedStorage(rig.directory.path)
        try await rig.runtime.press(.stop, on: AlarmKey(owner: Fixture.owner, id: rig.alarm))
        blocked.unblock()

        let restarted = try rig.restarted()
        #expect(await restarted.alarms(for: Fixture.owner).map(\.state) == [.alerting])
        try await restarted.press(.stop, on: AlarmKey(owner: Fixture.owner, id: rig.alarm))
        #expect(await restarted.alarms(for: Fixture.owner).isEmpty)
    }

    @Test func aCleanShutdownWritesWhatTheStoreRefusedEarlier() async throws {
        let rig = try await Rig()
        let blocked = BlockedStorage(rig.directory.path)
        try await rig.runtime.press(.stop, on: AlarmKey(owner: Fixture.owner, id: rig.alarm))
        blocked.unblock()
        let engine = Task { await rig.runtime.run() }
        await rig.clock.waitForSleeper(until: rig.clock.now.addingTimeInterval(30))
        engine.cancel()
        await engine.value
        let restarted = try rig.restarted()
        #expect(await restarted.alarms(for: Fixture.owner).isEmpty)
    }

    /// The file layer under the store carries every call: a write the disk refuses (as a full
    /// card does, injected) refuses the change, and the store works again once the disk does.
    @Test func aWriteTheFileLayerRefusesRefusesTheChangeUntilTheDiskWorks() async throws {
        let directory = try TemporaryDirectory()
        let files = FaultyFileSystem()
        var configuration = AlarmRuntime.Configuration(clockTrust: .always, storeDirectory: directory.path)
        configuration.files = DurableFile(calls: files)
        let runtime = try AlarmRuntime(
            configuration: configuration, clock: ManualWallClock(now: Self.sixFiftyNine),
            timeZones: ManualTimeZoneProvider(Fixture.berlin), authorizer: FixedAuthorization(.authorized),
            logger: EngineRig.logger)
        files.fail(.write, on: "*", with: ENOSPC)
        await AlarmStoreTests.expectStorageFailure {
            _ = try await runtime.schedule(id: Alarm.ID(), definition: Fixture.timer(600), client: Fixture.owner)
        }
        #expect(await runtime.storageHealth.fault?.errno == ENOSPC)
        #expect(files.changes.allSatisfy { $0.call != .write }, "nothing reached the disk")

        files.heal()
        let tea = try await runtime.schedule(id: Alarm.ID(), definition: Fixture.timer(600), client: Fixture.owner)
        #expect(files.changes.contains { $0.call == .write && $0.name == "alarms.journal" })
        let restarted = try Rig.runtime(in: directory.path, clock: ManualWallClock(now: Self.sixFiftyNine), log: InMemoryLogHandler())
        #expect(await restarted.alarms(for: Fixture.owner).map(\.id) == [tea.id])
    }

    // MARK: - Files that cannot be read

    enum Unreadable: CaseIterable, CustomTestStringConvertible {
        case directory, fifo, symlinkLoop

        func make(at path: String) {
            unlink(path)
            switch self {
            case .directory: mkdir(path, 0o700)
            case .fifo: mkfifo(path, 0o600)
            case .symlinkLoop: symlink(path, path)
            }
        }

        var testDescription: String { "\(self)" }
    }

    /// Every state file, in every shape a restore by hand or a damaged card leaves: the engine
    /// starts (never blocking on a FIFO), keeps what the other files hold, sets the bad file aside
    /// and reports it.
    @Test(arguments: Unreadable.allCases, ["alarms.journal", "alarms.store", "history.jsonl"])
    func aStateFileThatCannotBeReadIsSetAsideAndTheEngineStarts(_ shape: Unreadable, file: String) async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: Self.sixFiftyNine)
        let first = try Rig.runtime(in: directory.path, clock: clock, log: InMemoryLogHandler())
        let inSnapshot = try await first.schedule(id: Alarm.ID(), definition: Fixture.timer(600), client: Fixture.owner)
        try await first.writeSnapshot()
        let inJournal = try await first.schedule(id: Alarm.ID(), definition: Fixture.timer(900), client: Fixture.owner)
        clock.advance(by: 120)
        _ = try await first.schedule(id: Alarm.ID(), definition: Fixture.timer(1), client: Fixture.owner)
        clock.advance(by: 1)
        await first.catchUpWithClock()
        await first.settleStore()
        #expect(TestFiles.read(directory.path + "/history.jsonl")?.isEmpty == false)

        shape.make(at: directory.path + "/" + file)
        let log = InMemoryLogHandler()
        let restarted = try Rig.runtime(in: directory.path, clock: clock, log: log)
        let ids = Set(await restarted.alarms(for: Fixture.owner).map(\.id))
        let health = await restarted.storageHealth
        #expect(health.problemsAtStart.count == 1)
        #expect(health.problemsAtStart.first?.hasPrefix(directory.path + "/" + file) == true)
        #expect(health.fault == nil, "the store works: the bad file is out of the way")
        #expect(health.hasUnseenProblems)
        #expect(await restarted.deviceSnapshot().storage.displayText == "Bad file on disk")
        #expect(TestFiles.names(in: directory.path).contains { $0.hasPrefix(file + ".bad-") })
        #expect(log.entries.contains { $0.level >= .error })
        switch file {
        case "alarms.journal": #expect(ids.isSuperset(of: [inSnapshot.id]) && !ids.contains(inJournal.id))
        default: #expect(ids.isSuperset(of: [inSnapshot.id, inJournal.id]))
        }

        // A press at the device acknowledges it; status keeps it.
        await restarted.acknowledgeMissedAlarms()
        let seen = await restarted.deviceSnapshot().storage
        #expect(seen.displayText == nil)
        #expect(seen.problemsAtStart == health.problemsAtStart)
        // And the store is whole again for the next start.
        let again = try Rig.runtime(in: directory.path, clock: clock, log: InMemoryLogHandler())
        #expect(await again.storageHealth.problemsAtStart.isEmpty)
        #expect(Set(await again.alarms(for: Fixture.owner).map(\.id)) == ids)
    }

    @Test func aLeftoverThatIsNotAFileWhereASaveWritesIsSetAside() async throws {
        let directory = try TemporaryDirectory()
        mkdir(directory.path + "/alarms.store.tmp", 0o700)
        let runtime = try Rig.runtime(in: directory.path, clock: ManualWallClock(now: Self.sixFiftyNine), log: InMemoryLogHandler())
        #expect(await runtime.storageHealth.problemsAtStart.count == 1)
        _ = try await runtime.schedule(id: Alarm.ID(), definition: Fixture.timer(60), client: Fixture.owner)
        try await runtime.writeSnapshot()
    }
}
