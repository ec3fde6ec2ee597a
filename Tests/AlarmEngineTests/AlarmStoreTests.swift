import AlarmEngine
import AlarmKitCore
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import FoundationEssentials
import Glibc
import Logging
import Testing

/// The durable store: round trips, every kind of bad copy, and what the runtime makes of them.
@Suite struct AlarmStoreTests {
    static let now = Fixture.at("2026-06-01T06:00:00Z")
    static let silent = Logger(label: "alarm-store-test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Two alarms in different phases, a missed alarm and an authorization: every part of the format.
    static let sample: StoredState = {
        var scheduler = Fixture.scheduler()
        do {
            try scheduler.add(Fixture.alarm(7, 30, weekly: [.monday, .friday], postAlert: 540), now: now)
            try scheduler.add(Fixture.timer(600), now: now)
            try scheduler.add(Fixture.fixed(now.addingTimeInterval(-3_600)), now: now.addingTimeInterval(-7_200))
        } catch {
            fatalError("sample alarms are valid: \(error)")
        }
        _ = scheduler.evaluate(now: now)
        return StoredState(
            scheduler: scheduler.snapshot, authorizations: [AuthorizationRecord(client: Fixture.owner, state: .authorized)],
            savedAt: now)
    }()

    @Test func savedStateLoadsBackUnchanged() throws {
        let scratch = try TemporaryDirectory()
        let store = AlarmStore(directory: scratch.path, logger: Self.silent)
        #expect(Self.sample.scheduler.alarms.count == 2 && Self.sample.scheduler.missedAlarms.count == 1)
        try store.save(Self.sample)
        let loaded = store.load()
        #expect(loaded.state == Self.sample)
        #expect(loaded.problems.isEmpty)
        #expect(TestFiles.read(store.primaryPath) == TestFiles.read(store.backupPath))
        #expect(TestFiles.names(in: scratch.path) == ["alarms.store", "alarms.store.backup"])
    }

    @Test func emptyDirectoryIsAFirstStart() throws {
        let scratch = try TemporaryDirectory()
        let directory = scratch.path + "/var/lib/alarmd"
        let loaded = AlarmStore(directory: directory, logger: Self.silent).load()
        #expect(loaded.state == nil)
        #expect(loaded.problems.isEmpty)
        #expect(access(directory, F_OK) == 0, "loading created the directory")
        #expect(TestFiles.names(in: directory).isEmpty)
    }

    @Test(arguments: Damage.allCases, ["alarms.store", "alarms.store.backup"])
    func damagedCopyIsKeptAsideAndTheOtherOneUsed(damage: Damage, copy: String) throws {
        let scratch = try TemporaryDirectory()
        let store = AlarmStore(directory: scratch.path, logger: Self.silent)
        try store.save(Self.sample)
        let damaged = try damage.apply(to: scratch.path + "/" + copy)

        let loaded = store.load()
        #expect(loaded.state == Self.sample)
        #expect(loaded.problems.count == 1)
        let aside = TestFiles.names(in: scratch.path).filter { $0.hasPrefix("\(copy).bad-\(damage.tag)-") }
        #expect(aside.count == 1, "kept aside as \(copy).bad-\(damage.tag)-*: \(TestFiles.names(in: scratch.path))")
        #expect(aside.first.flatMap { TestFiles.read(scratch.path + "/" + $0) } == damaged, "kept aside unchanged")

        var later = Self.sample
        later.savedAt = Self.now.addingTimeInterval(60)
        try store.save(later)
        #expect(try AlarmStore.decode(TestFiles.read(scratch.path + "/" + copy) ?? []) == later, "the next save rewrote it")
        let reloaded = store.load()
        #expect(reloaded.state == later)
        #expect(reloaded.problems.isEmpty)
    }

    @Test func bothCopiesBadStartsEmptyAndDeletesNothing() throws {
        let scratch = try TemporaryDirectory()
        let store = AlarmStore(directory: scratch.path, logger: Self.silent)
        try store.save(Self.sample)
        let primary = try Damage.newerVersion.apply(to: store.primaryPath)
        let backup = try Damage.truncated.apply(to: store.backupPath)

        let loaded = store.load()
        #expect(loaded.state == nil)
        #expect(loaded.problems.count == 2)
        let names = TestFiles.names(in: scratch.path)
        #expect(names.count == 2 && names.allSatisfy { $0.contains(".bad-") }, "only the two kept-aside copies: \(names)")
        let kept = Set(names.compactMap { TestFiles.read(scratch.path + "/" + $0) })
        #expect(kept == Set([primary, backup].compactMap { $0 }), "both copies kept byte for byte")
    }

    /// A copy kept aside earlier holds someone's alarms; a later bad copy must not replace it,
    /// even when both are kept aside in the same second.
    @Test func keptAsideCopyIsNeverReplacedByALaterOne() throws {
        let scratch = try TemporaryDirectory()
        let store = AlarmStore(directory: scratch.path, logger: Self.silent)
        let second = Int(Date().timeIntervalSince1970)
        var earlier: [String: [UInt8]] = [:]
        for offset in -1...5 {
            let name = "alarms.store.bad-corrupt-\(second + offset)"
            earlier[name] = Array("kept aside earlier (\(offset))".utf8)
            try TestFiles.write(earlier[name]!, to: scratch.path + "/" + name)
        }
        try store.save(Self.sample)
        let damaged = try Damage.flippedByte.apply(to: store.primaryPath)

        _ = store.load()
        for (name, bytes) in earlier {
            let intact = TestFiles.read(scratch.path + "/" + name) == bytes
            #expect(intact, "\(name) was overwritten by the copy kept aside later")
        }
        let kept = TestFiles.names(in: scratch.path).compactMap { TestFiles.read(scratch.path + "/" + $0) }
        #expect(damaged.map(kept.contains) == true, "the new bad copy is kept too")
    }

    @Test func everySingleByteDamageToTheContentIsDetected() throws {
        let bytes = try AlarmStore.encode(Self.sample)
        let body = bytes.firstIndex(of: UInt8(ascii: "\n"))! + 1
        for index in body..<bytes.count {
            var damaged = bytes
            damaged[index] ^= 1 << (index % 8)
            #expect(throws: AlarmStore.DecodingProblem.checksumMismatch, "byte \(index)") {
                try AlarmStore.decode(damaged)
            }
        }
    }

    /// Whatever the bytes, decoding returns a state or a problem: it never traps. Mutated content
    /// with a recomputed checksum reaches the JSON decoder too.
    @Test func decodingNeverCrashesOnRandomOrMutatedBytes() throws {
        var random = SeededRandomNumberGenerator(seed: 0x5702E)
        let valid = try AlarmStore.encode(Self.sample)
        let newline = valid.firstIndex(of: UInt8(ascii: "\n"))!
        let json = Array(valid[(newline + 1)...])
        let hostile: [[UInt8]] = [
            Self.storeFile(Array(repeating: UInt8(ascii: "["), count: 100_000)),
            Self.storeFile(Array(repeating: UInt8(ascii: "{"), count: 100_000)),
            Self.storeFile(Array("{\"savedAt\":1e999}".utf8)),
            Array("alarmd-store 1 0 99999999999999999999\n".utf8),
            Array("alarmd-store 1 ffffffffff -1\n".utf8),
            Array("alarmd-store 99999999999999999999 0 0\n".utf8),
        ]
        for bytes in hostile {
            #expect(throws: AlarmStore.DecodingProblem.self) { try AlarmStore.decode(bytes) }
        }
        for round in 0..<4_000 {
            var bytes: [UInt8]
            var checksummed = false
            switch round % 4 {
            case 0:
                bytes = (0..<Int.random(in: 0...400, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            case 1:
                bytes = valid
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            case 2:
                bytes = Array(valid.prefix(Int.random(in: 0..<valid.count, using: &random)))
            default:
                var content = json
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    content[Int.random(in: 0..<content.count, using: &random)] = Self.jsonByte(using: &random)
                }
                bytes = Self.storeFile(content)
                checksummed = true
            }
            // A damaged file can only decode to the state it held; with a recomputed checksum any
            // state may come out, as long as nothing traps.
            if let state = try? AlarmStore.decode(bytes), !checksummed {
                #expect(state == Self.sample, "round \(round) decoded to a different state")
            }
        }
    }

    // MARK: - Through the runtime

    @Test func runtimeResumesEveryAlarmWhenThePrimaryIsDamaged() async throws {
        let scratch = try TemporaryDirectory()
        let first = try Self.runtime(in: scratch.path)
        _ = try await first.schedule(id: Alarm.ID(), definition: Fixture.alarm(6, 45, weekly: Fixture.everyDay), client: Fixture.owner)
        _ = try await first.schedule(id: Alarm.ID(), definition: Fixture.timer(900), client: Fixture.owner)
        let acknowledged = await first.alarms(for: Fixture.owner)
        try await first.writeSnapshot()
        let store = AlarmStore(directory: scratch.path, logger: Self.silent)
        try Damage.flippedByte.apply(to: store.primaryPath)

        let second = try Self.runtime(in: scratch.path)
        #expect(await second.alarms(for: Fixture.owner) == acknowledged)
        #expect(await second.authorizationState(for: Fixture.owner) == .authorized)
        #expect(TestFiles.names(in: scratch.path).contains { $0.hasPrefix("alarms.store.bad-corrupt-") })
        let reloaded = store.load()
        #expect(reloaded.problems.isEmpty, "the restart wrote a good primary again")
        #expect(reloaded.state?.scheduler.alarms.map(\.alarm) == acknowledged)
    }

    /// The clock starts whatever the state directory is: a crash-looping daemon rings nothing.
    @Test func aStoreDirectoryThatCannotBeCreatedStartsTheEngineAndShowsTheFault() async throws {
        let scratch = try TemporaryDirectory()
        // A regular file as the parent: mkdir fails with ENOTDIR, permissions or not (tests run as root).
        try TestFiles.write(Array("not a directory".utf8), to: scratch.path + "/lib")
        let directory = scratch.path + "/lib/alarmd"
        let runtime = try Self.runtime(in: directory)
        let atStart = await runtime.storageHealth
        #expect(atStart.problemsAtStart.contains("mkdir \(directory): Not a directory"))
        #expect(atStart.fault?.errno == ENOTDIR, "the first save, at start, failed")
        #expect(await runtime.deviceSnapshot().storage.displayText == "Disk: ENOTDIR")
        await Self.expectStorageFailure {
            _ = try await runtime.schedule(id: Alarm.ID(), definition: Fixture.timer(60), client: Fixture.owner)
        }
        #expect(await runtime.alarms(for: Fixture.owner).isEmpty)
    }

    @Test func changeThatCannotBeSavedIsRefusedAndChangesNothing() async throws {
        let scratch = try TemporaryDirectory()
        let runtime = try Self.runtime(in: scratch.path)
        let tea = Alarm.ID()
        _ = try await runtime.schedule(id: tea, definition: Fixture.timer(600), client: Fixture.owner)
        let acknowledged = await runtime.alarms(for: Fixture.owner)
        // A directory in place of the journal (and in the way of a snapshot's temporary file)
        // makes every save fail, even as root.
        let journal = scratch.path + "/alarms.journal"
        #expect(rename(journal, journal + ".moved") == 0)
        mkdir(journal, 0o700)
        let blocker = scratch.path + "/alarms.store.tmp"
        mkdir(blocker, 0o700)

        await Self.expectStorageFailure {
            _ = try await runtime.schedule(id: Alarm.ID(), definition: Fixture.timer(60), client: Fixture.owner)
        }
        await Self.expectStorageFailure { try await runtime.perform(.pause, id: tea, client: Fixture.owner) }
        await Self.expectStorageFailure { try await runtime.perform(.cancel, id: tea, client: Fixture.owner) }
        #expect(await runtime.alarms(for: Fixture.owner) == acknowledged)

        rmdir(blocker)
        rmdir(journal)
        #expect(rename(journal + ".moved", journal) == 0)
        let restarted = try Self.runtime(in: scratch.path)
        #expect(await restarted.alarms(for: Fixture.owner) == acknowledged)
        try await runtime.perform(.pause, id: tea, client: Fixture.owner)
        #expect(await runtime.alarms(for: Fixture.owner).map(\.state) == [.paused], "saving works again")
    }

    /// A snapshot is durable once the primary copy is: a backup that cannot be written does not
    /// fail it, and every change survives a restart.
    @Test func snapshotIsDurableOnceThePrimaryIsEvenIfTheBackupFails() async throws {
        let scratch = try TemporaryDirectory()
        let runtime = try Self.runtime(in: scratch.path)
        _ = try await runtime.schedule(id: Alarm.ID(), definition: Fixture.timer(600), client: Fixture.owner)
        let blocker = scratch.path + "/alarms.store.backup.tmp"
        mkdir(blocker, 0o700)

        _ = try await runtime.schedule(id: Alarm.ID(), definition: Fixture.timer(60), client: Fixture.owner)
        try await runtime.writeSnapshot()
        let acknowledged = await runtime.alarms(for: Fixture.owner)
        #expect(acknowledged.count == 2)
        #expect(TestFiles.read(scratch.path + "/alarms.journal") == Array("alarmd-journal 1\n".utf8), "the snapshot emptied the journal")

        rmdir(blocker)
        let restarted = try Self.runtime(in: scratch.path)
        #expect(await restarted.alarms(for: Fixture.owner) == acknowledged)
    }

    // MARK: - Helpers

    /// A store file around `content`, with a correct header and checksum.
    static func storeFile(_ content: [UInt8]) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in content {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
        }
        let header = "alarmd-store 1 \(String(crc ^ 0xFFFF_FFFF, radix: 16)) \(content.count)\n"
        return Array(header.utf8) + content
    }

    /// A byte that keeps JSON plausible more often than a random one.
    static func jsonByte(using random: inout SeededRandomNumberGenerator) -> UInt8 {
        Array("{}[]\":,0123456789.-eE+truefalsnl \\u".utf8).randomElement(using: &random)!
    }

    static func runtime(in directory: String) throws -> AlarmRuntime {
        try AlarmRuntime(
            configuration: .init(clockTrust: .always, storeDirectory: directory),
            clock: ManualWallClock(now: now), timeZones: ManualTimeZoneProvider(Fixture.berlin),
            authorizer: FixedAuthorization(.authorized), logger: silent)
    }

    static func expectStorageFailure(
        sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            Issue.record("the change was accepted", sourceLocation: sourceLocation)
        } catch AlarmOperationError.storageFailure {
        } catch {
            Issue.record("refused with \(error), not storageFailure", sourceLocation: sourceLocation)
        }
    }
}

/// Ways a store file goes bad on a real device, and the tag its kept-aside name carries.
enum Damage: CaseIterable, Sendable, CustomTestStringConvertible {
    case flippedByte, truncated, emptied, garbage, newerVersion, notAFile

    var tag: String {
        switch self {
        case .newerVersion: "version2"
        case .notAFile: "notafile"
        default: "corrupt"
        }
    }

    var testDescription: String { "\(self)" }

    /// Damages the file at `path` and returns its new bytes (`nil`: it cannot be read).
    @discardableResult
    func apply(to path: String) throws -> [UInt8]? {
        let bytes = TestFiles.read(path) ?? []
        let damaged: [UInt8]
        switch self {
        case .notAFile:
            // A directory in its place: it holds no state, whatever the permissions (tests run as root).
            unlink(path)
            mkdir(path, 0o700)
            return nil
        case .flippedByte:
            var flipped = bytes
            flipped[flipped.count - 10] ^= 0x04
            damaged = flipped
        case .truncated:
            damaged = Array(bytes.prefix(bytes.count / 2))
        case .emptied:
            damaged = []
        case .garbage:
            damaged = Array("<html>502 Bad Gateway</html>\n".utf8) + (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        case .newerVersion:
            let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            damaged = Array("alarmd-store 2 0 \(bytes.count - newline - 1)".utf8) + bytes[newline...]
        }
        try TestFiles.write(damaged, to: path)
        return damaged
    }
}
