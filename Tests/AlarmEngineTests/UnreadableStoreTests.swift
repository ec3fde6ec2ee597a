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

/// A store that could not be read is never overwritten: a failing SD card or a USB disk not ready
/// at start costs no alarm, whatever reads and writes fail, in whatever order.
@Suite(.timeLimit(.minutes(5))) struct UnreadableStoreTests {
    static let sixFiftyNine = Fixture.at("2026-11-23T06:59:00+01:00")
    static let storeFiles = ["alarms.store", "alarms.store.backup", "alarms.journal"]

    static func runtime(
        in directory: String, clock: ManualWallClock, files: FaultyFileSystem? = nil, log: InMemoryLogHandler? = nil
    ) throws -> AlarmRuntime {
        var configuration = AlarmRuntime.Configuration(clockTrust: .always, storeDirectory: directory, storeSnapshotEvery: 4)
        if let files { configuration.files = DurableFile(calls: files) }
        var logger = log.map { log in Logger(label: "alarmd.engine", factory: { _ in log }) } ?? EngineRig.logger
        logger.logLevel = .info
        return try AlarmRuntime(
            configuration: configuration, clock: clock, timeZones: ManualTimeZoneProvider(Fixture.berlin),
            authorizer: FixedAuthorization(.authorized), logger: logger)
    }

    /// Lets the longest wait between two reads of the store pass, and the engine wake for it.
    static func passRetryInterval(_ runtime: AlarmRuntime, _ clock: ManualWallClock) async {
        clock.advance(by: 30)
        await runtime.catchUpWithClock()
        await runtime.settleStore()
    }

    /// The attack: every read and write of the state directory fails with EIO at start (the file
    /// cannot be read, nor moved aside); the card recovers; the alarms are loaded and nothing of
    /// them was overwritten, neither meanwhile nor after.
    @Test func anEIOAtStartThenRecoveryLoadsEveryAlarmAndOverwritesNothing() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: Self.sixFiftyNine)
        let healthy = try Self.runtime(in: directory.path, clock: clock)
        let inSnapshot = try await healthy.schedule(id: Alarm.ID(), definition: Fixture.timer(3_600), client: Fixture.owner)
        try await healthy.writeSnapshot()
        let inJournal = try await healthy.schedule(
            id: Alarm.ID(), definition: Fixture.alarm(7, 30, weekly: Fixture.everyDay), client: Fixture.owner)
        let before = Self.storeFiles.map { TestFiles.read(directory.path + "/" + $0) }
        #expect(before.allSatisfy { $0 != nil })

        let files = FaultyFileSystem()
        for call in [FaultyFileSystem.Call.read, .rename, .openForWriting, .write] {
            files.fail(call, on: "*", with: EIO)
        }
        let failing = try Self.runtime(in: directory.path, clock: clock, files: files)
        await AlarmStoreTests.expectStorageFailure {
            _ = try await failing.schedule(id: Alarm.ID(), definition: Fixture.timer(60), client: Fixture.owner)
        }
        await Self.passRetryInterval(failing, clock)
        #expect(Self.storeFiles.map { TestFiles.read(directory.path + "/" + $0) } == before, "every file as it was")

        files.heal()
        for _ in 0..<3 { await Self.passRetryInterval(failing, clock) }
        let ids = Set([inSnapshot.id, inJournal.id])
        #expect(Set(await failing.alarms(for: Fixture.owner).map(\.id)) == ids, "loaded once the card reads again")
        let restarted = try Self.runtime(in: directory.path, clock: clock)
        #expect(Set(await restarted.alarms(for: Fixture.owner).map(\.id)) == ids, "and on disk")
    }

    /// While the primary copy cannot be read, the alarm the backup holds rings and STOP silences
    /// it; changes are refused with a message that says why; the display and the storage health
    /// say so, logged once when it begins and once when it ends; nothing is written to the store
    /// meanwhile; once the copy reads, the silence is kept and written.
    @Test func whileACopyCannotBeReadWhatIsKnownRingsStopSilencesAndChangesAreRefused() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: Self.sixFiftyNine)
        let healthy = try Self.runtime(in: directory.path, clock: clock)
        let wake = try await healthy.schedule(id: Alarm.ID(), definition: Fixture.fixed(Self.sixFiftyNine.addingTimeInterval(60)), client: Fixture.owner)
        try await healthy.writeSnapshot()
        let before = Self.storeFiles.map { TestFiles.read(directory.path + "/" + $0) }

        let files = FaultyFileSystem()
        files.fail(.read, on: "alarms.store", with: EIO)
        let log = InMemoryLogHandler()
        let runtime = try Self.runtime(in: directory.path, clock: clock, files: files, log: log)
        let health = await runtime.storageHealth
        #expect(health.readFault?.errno == EIO)
        #expect(health.readFault?.message.contains("alarms.store") == true)
        #expect(await runtime.deviceSnapshot().storage.displayText == "Disk unreadable")
        do {
            _ = try await runtime.schedule(id: Alarm.ID(), definition: Fixture.timer(60), client: Fixture.owner)
            Issue.record("a change was accepted while the store cannot be read")
        } catch AlarmOperationError.storageFailure(let message) {
            #expect(message.contains("the alarm store could not be read (EIO"), "\(message)")
            #expect(message.contains("no alarm already set is lost"), "\(message)")
        }

        clock.advance(by: 60)
        await runtime.catchUpWithClock()
        await runtime.settleStore()
        #expect(await runtime.alarms(for: Fixture.owner).map(\.state) == [.alerting], "the backup's alarm rings")
        try await runtime.press(.stop, on: Fixture.key(wake.id))
        #expect(await runtime.alarms(for: Fixture.owner).isEmpty, "STOP silences")
        #expect(await runtime.storageHealth.hasUnsavedChanges)
        for _ in 0..<4 { await Self.passRetryInterval(runtime, clock) }
        #expect(Self.storeFiles.map { TestFiles.read(directory.path + "/" + $0) } == before, "nothing written meanwhile")
        let storeChanges = files.changes.filter { change in Self.storeFiles.contains { change.name.hasPrefix($0) } }
        #expect(storeChanges.isEmpty, "\(storeChanges)")

        files.heal()
        await Self.passRetryInterval(runtime, clock)
        #expect(await runtime.storageHealth == StorageHealth())
        #expect(await runtime.alarms(for: Fixture.owner).isEmpty, "still silenced")
        #expect(try await Self.runtime(in: directory.path, clock: clock).alarms(for: Fixture.owner).isEmpty, "and on disk")
        let messages = log.entries.map { "\($0.message)" }
        #expect(messages.filter { $0.hasPrefix("Alarm store could not be read") }.count == 1, "\(messages)")
        #expect(messages.filter { $0.hasPrefix("Alarm store read again") }.count == 1, "\(messages)")
    }

    /// The store is read again after 2 s, then twice as long each time, up to 30 s: the engine's
    /// timer wakes for it, and nothing more often.
    @Test func theStoreIsReadAgainOnTheEnginesTimerWithABackoffUpToThirtySeconds() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: Self.sixFiftyNine)
        let tea = try await Self.runtime(in: directory.path, clock: clock)
            .schedule(id: Alarm.ID(), definition: Fixture.timer(3_600), client: Fixture.owner)
        let files = FaultyFileSystem()
        files.fail(.read, on: "alarms.journal", with: EIO)
        let runtime = try Self.runtime(in: directory.path, clock: clock, files: files)
        var waits: [TimeInterval] = []
        for _ in 0..<7 {
            let next = try #require(await runtime.nextDeadline)
            waits.append(next.timeIntervalSince(clock.now))
            clock.advance(to: next)
            await runtime.catchUpWithClock()
            await runtime.settleStore()
        }
        #expect(waits == [2, 4, 8, 16, 30, 30, 30])
        files.heal()
        let engine = Task { await runtime.run() }
        defer { engine.cancel() }
        let retryAt = try #require(await runtime.nextDeadline)
        await clock.waitForSleeper(until: retryAt)
        var snapshots = runtime.deviceSnapshots().makeAsyncIterator()
        clock.advance(to: retryAt)
        while let snapshot = await snapshots.next(), snapshot.storage.readFault != nil {}
        #expect(await runtime.nextDeadline == Self.sixFiftyNine.addingTimeInterval(3_600), "only the timer's, once it reads")
        #expect(await runtime.alarms(for: Fixture.owner).map(\.id) == [tea.id])
    }

    /// A read that hangs on a failing card (the kernel retrying for seconds) happens beside the
    /// engine: an alarm due meanwhile rings and STOP silences it.
    @Test func aReadThatHangsOnTheCardKeepsNeitherAnAlarmNorStopWaiting() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: Self.sixFiftyNine)
        let healthy = try Self.runtime(in: directory.path, clock: clock)
        let wake = try await healthy.schedule(
            id: Alarm.ID(), definition: Fixture.fixed(Self.sixFiftyNine.addingTimeInterval(60)), client: Fixture.owner)
        try await healthy.writeSnapshot()
        let files = FaultyFileSystem()
        files.fail(.read, on: "alarms.store", with: EIO)
        let runtime = try Self.runtime(in: directory.path, clock: clock, files: files)
        files.heal()
        files.stallReads(on: "alarms.store")
        var stalls = files.stalledReads.makeAsyncIterator()
        clock.advance(to: try #require(await runtime.nextDeadline))
        await runtime.catchUpWithClock()
        _ = await stalls.next()
        clock.advance(to: Self.sixFiftyNine.addingTimeInterval(60))
        await runtime.catchUpWithClock()
        #expect(await runtime.alarms(for: Fixture.owner).map(\.state) == [.alerting], "the backup's alarm rings")
        try await runtime.press(.stop, on: Fixture.key(wake.id))
        #expect(await runtime.alarms(for: Fixture.owner).isEmpty)
        files.releaseStalledReads()
        await runtime.settleStore()
        #expect(await runtime.storageHealth.readFault == nil)
        #expect(await runtime.alarms(for: Fixture.owner).isEmpty, "stopped meanwhile, and stays so")
    }

    /// A damaged copy that a read of the store sets aside while another file still fails to read
    /// is reported as at start, once.
    @Test func aDamagedCopySetAsideWhileTheStoreIsReadAgainIsReported() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: Self.sixFiftyNine)
        let healthy = try Self.runtime(in: directory.path, clock: clock)
        _ = try await healthy.schedule(id: Alarm.ID(), definition: Fixture.timer(3_600), client: Fixture.owner)
        try await healthy.writeSnapshot()
        let files = FaultyFileSystem()
        files.fail(.read, on: "alarms.store", with: EIO)
        let runtime = try Self.runtime(in: directory.path, clock: clock, files: files)
        #expect(await runtime.storageHealth.problemsAtStart.isEmpty)

        try Damage.flippedByte.apply(to: directory.path + "/alarms.store.backup")
        for _ in 0..<3 { await Self.passRetryInterval(runtime, clock) }
        let problems = await runtime.storageHealth.problemsAtStart
        #expect(problems.count == 1 && problems.first?.hasPrefix(directory.path + "/alarms.store.backup: damaged") == true, "\(problems)")
        #expect(await runtime.storageHealth.readFault != nil)
    }

    /// An alarm only the unreadable copy held (the backup is older) comes back once the copy
    /// reads, and rings if it fell due meanwhile, within the grace period.
    @Test func anAlarmOnlyTheUnreadableCopyHeldRingsOnceItCanBeRead() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: Self.sixFiftyNine)
        let healthy = try Self.runtime(in: directory.path, clock: clock)
        _ = try await healthy.schedule(id: Alarm.ID(), definition: Fixture.timer(3_600), client: Fixture.owner)
        try await healthy.writeSnapshot()
        let olderBackup = try #require(TestFiles.read(directory.path + "/alarms.store.backup"))
        let later = try await healthy.schedule(
            id: Alarm.ID(), definition: Fixture.fixed(Self.sixFiftyNine.addingTimeInterval(20)), client: Fixture.owner)
        try await healthy.writeSnapshot()
        try TestFiles.write(olderBackup, to: directory.path + "/alarms.store.backup")

        let files = FaultyFileSystem()
        files.fail(.read, on: "alarms.store", with: EIO)
        let runtime = try Self.runtime(in: directory.path, clock: clock, files: files)
        #expect(await runtime.alarms(for: Fixture.owner).count == 1, "what the backup holds")
        clock.advance(by: 30)
        await runtime.catchUpWithClock()
        await runtime.settleStore()
        files.heal()
        let retryAt = try #require(await runtime.nextDeadline)
        clock.advance(to: retryAt)
        var events = runtime.events().makeAsyncIterator()
        await runtime.catchUpWithClock()
        await runtime.settleStore()
        let lateBy = retryAt.timeIntervalSince(Self.sixFiftyNine.addingTimeInterval(20))
        #expect(await events.nextElement() == .alertStarted(Fixture.key(later.id), lateBy: lateBy))
        #expect(await runtime.alarms(for: Fixture.owner).map(\.state) == [.countdown, .alerting])
    }

    /// What the engine did meanwhile is kept where the store holds the alarm it started from; a
    /// version only the unreadable file had wins over it; alarms only the store had are added;
    /// missed alarms acknowledged meanwhile stay acknowledged.
    @Test func whatTheEngineDidMeanwhileIsReconciledAlarmByAlarm() throws {
        let now = Self.sixFiftyNine
        var scheduler = Fixture.scheduler()
        let rang = try scheduler.add(Fixture.fixed(now.addingTimeInterval(-30)), now: now.addingTimeInterval(-3_600))
        let edited = try scheduler.add(Fixture.alarm(7, 30), now: now)
        let repeating = try scheduler.add(Fixture.alarm(7, 0, weekly: Fixture.everyDay), now: now)
        let missedEarlier = MissedAlarm(
            alarmID: Alarm.ID(), owner: Fixture.owner, title: "Old", dueDate: now.addingTimeInterval(-86_400),
            reason: .tooLate, occurrences: 1, recordedAt: now.addingTimeInterval(-86_000))
        scheduler.missedAlarms = [missedEarlier]
        let known = StoredState(scheduler: scheduler.snapshot, savedAt: now)

        // Meanwhile: the one-time alarm rang and was stopped, the earlier miss was acknowledged.
        var engine = scheduler
        _ = engine.evaluate(now: now)
        _ = try engine.act(.stop, rang, now: now)
        _ = engine.acknowledgeMissedAlarms()
        // The store: a version of `edited` the engine never saw, and an alarm it never knew.
        var stored = scheduler
        _ = try stored.perform(.disable, id: edited, owner: Fixture.owner, now: now)
        let onlyStored = try stored.add(Fixture.timer(600), now: now)

        let merged = AlarmRuntime.reconcile(
            stored: StoredState(scheduler: stored.snapshot, savedAt: now), known: known,
            engine: StoredState(scheduler: engine.snapshot, savedAt: now), missedLimit: 20)
        let records = Dictionary(uniqueKeysWithValues: merged.state.scheduler.alarms.map { ($0.id, $0) })
        #expect(records[rang] == nil, "stopped meanwhile, stays gone")
        #expect(records[edited] == stored.record(for: Fixture.key(edited)), "the store's newer version")
        #expect(records[repeating] == engine.record(for: Fixture.key(repeating)))
        #expect(records[onlyStored] == stored.record(for: Fixture.key(onlyStored)))
        #expect(merged.state.scheduler.missedAlarms.isEmpty, "acknowledged meanwhile")
        #expect(merged.keptFromEngine == [Fixture.key(rang)])
    }

    /// A snapshot puts the previous primary copy back when its rename cannot be made durable; a
    /// primary that cannot be read at that moment could not be put back, so the snapshot does not
    /// start: deleting it would leave only an older backup.
    @Test func aSnapshotThatCouldNotPutThePrimaryBackLeavesItAsItIs() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: Self.sixFiftyNine)
        let files = FaultyFileSystem()
        let runtime = try Self.runtime(in: directory.path, clock: clock, files: files)
        let first = try await runtime.schedule(id: Alarm.ID(), definition: Fixture.timer(600), client: Fixture.owner)
        try await runtime.writeSnapshot()
        // The backup stays behind: its rename fails, which the snapshot logs and survives.
        files.fail(.rename, on: "alarms.store.backup.tmp", with: ENOSPC)
        let second = try await runtime.schedule(id: Alarm.ID(), definition: Fixture.timer(900), client: Fixture.owner)
        try await runtime.writeSnapshot()

        files.fail(.read, on: "alarms.store", with: EIO)
        files.fail(.fsync, on: String(directory.path.split(separator: "/").last!), with: EIO)
        await #expect(throws: (any Error).self) { try await runtime.writeSnapshot() }

        files.heal()
        let restarted = try Self.runtime(in: directory.path, clock: clock)
        #expect(Set(await restarted.alarms(for: Fixture.owner).map(\.id)) == [first.id, second.id])
    }

    // MARK: - Any sequence of faults

    /// What the test knows of one alarm from the answers it got.
    enum Expected: Equatable {
        /// Acknowledged, in this state.
        case present(Alarm.State)
        /// Acknowledged cancelled.
        case absent
        /// A change of it was refused: either outcome is allowed.
        case unknown
    }

    /// Random client changes, crashes, clean restarts, retries, and faults (EIO, ENOSPC, EROFS)
    /// switched on and off for each kind of call on each store file; after the disk heals, every
    /// acknowledged change is there, and nothing that never was.
    @Test(arguments: 1...24)
    func everyAcknowledgedChangeSurvivesAnySequenceOfReadAndWriteErrors(seed: UInt64) async throws {
        var random = SeededRandomNumberGenerator(seed: 0x57_0AE_0000 + seed)
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: Self.sixFiftyNine)
        let files = FaultyFileSystem()
        var runtime = try Self.runtime(in: directory.path, clock: clock, files: files)
        var ledger: [Alarm.ID: Expected] = [:]
        var script: [String] = []
        let calls: [FaultyFileSystem.Call] = [
            .read, .openForReading, .fstat, .write, .fsync, .fdatasync, .ftruncate, .rename, .openForWriting, .unlink,
        ]
        let names = Self.storeFiles + ["alarms.store.tmp", "alarms.store.backup.tmp", "*"]
        let errors = [EIO, ENOSPC, EROFS, EACCES]

        for _ in 0..<160 {
            let known = ledger.filter { $0.value != .absent }.keys.sorted { $0.uuidString < $1.uuidString }
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<26:
                let id = Alarm.ID()
                do {
                    _ = try await runtime.schedule(id: id, definition: Fixture.timer(86_400), client: Fixture.owner)
                    ledger[id] = .present(.countdown)
                    script.append("schedule \(id): ok")
                } catch {
                    ledger[id] = .unknown
                    script.append("schedule \(id): \(error)")
                }
            case 26..<46 where !known.isEmpty:
                let id = known.randomElement(using: &random)!
                let action: AlarmAction = [.cancel, .pause, .resume].randomElement(using: &random)!
                do {
                    try await runtime.perform(AlarmCommand(action), id: id, client: Fixture.owner)
                    switch action {
                    case .cancel: ledger[id] = .absent
                    case .pause: ledger[id] = .present(.paused)
                    default: ledger[id] = .present(.countdown)
                    }
                    script.append("\(action) \(id): ok")
                } catch AlarmOperationError.storageFailure(let message) {
                    ledger[id] = .unknown
                    script.append("\(action) \(id): refused: \(message)")
                } catch {
                    // Not found while the store is unread, or not in a state for it: nothing changed.
                    script.append("\(action) \(id): \(error)")
                }
            case 46..<64:
                let call = calls.randomElement(using: &random)!
                let name = names.randomElement(using: &random)!
                let errno = errors.randomElement(using: &random)!
                files.fail(call, on: name, with: errno)
                script.append("fail \(call) on \(name) with \(errno)")
            case 64..<74:
                files.heal()
                script.append("heal")
            case 74..<84:
                runtime = try Self.runtime(in: directory.path, clock: clock, files: files)
                script.append("crash and restart")
            case 84..<90:
                let engine = Task { [runtime] in await runtime.run() }
                engine.cancel()
                await engine.value
                runtime = try Self.runtime(in: directory.path, clock: clock, files: files)
                script.append("clean restart")
            default:
                await Self.passRetryInterval(runtime, clock)
                script.append("retry")
            }
        }

        files.heal()
        for _ in 0..<3 { await Self.passRetryInterval(runtime, clock) }
        let recovered = try Self.runtime(in: directory.path, clock: clock)
        let alarms = Dictionary(uniqueKeysWithValues: await recovered.alarms(for: Fixture.owner).map { ($0.id, $0.state) })
        let context = "seed \(seed):\n" + script.joined(separator: "\n")
        for (id, expected) in ledger {
            switch expected {
            case .present(let state):
                #expect(alarms[id] == state, "acknowledged alarm \(id) is \(alarms[id].map { "\($0)" } ?? "lost") after \(context)")
            case .absent:
                #expect(alarms[id] == nil, "acknowledged cancel of \(id) undone after \(context)")
            case .unknown:
                break
            }
        }
        let strangers = Set(alarms.keys).subtracting(ledger.keys)
        #expect(strangers.isEmpty, "alarms nobody scheduled: \(strangers)")
    }
}
