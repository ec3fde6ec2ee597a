import AlarmDaemon
import AlarmEngine
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import FoundationEssentials
import Glibc
import Logging
import Synchronization
import Testing

/// The household settings file: a damaged one is set aside, one that fails to read is never
/// replaced before it has been read.
@Suite struct HouseholdSettingsFileTests {
    static let defaults = HouseholdSettings(volumeDB: -12, crescendoSeconds: 30, snoozeSeconds: 540, autoSilenceSeconds: 900)
    static let chosen = HouseholdSettings(volumeDB: -3, crescendoSeconds: 0, snoozeSeconds: 300, autoSilenceSeconds: 600)
    static let silent = Logger(label: "settings-test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The kernel's file system, with every read of one file failing while `failure` is set.
    final class FailingReads: FileSystemCalls {
        let name: String
        let failure = Mutex<Int32?>(nil)
        private let system = SystemFileSystem()
        private let descriptors = Mutex<Set<Int32>>([])

        init(of name: String) {
            self.name = name
        }

        func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
            let descriptor = system.open(path, flags, mode)
            if descriptor >= 0, path.hasSuffix("/" + name) { descriptors.withLock { _ = $0.insert(descriptor) } }
            return descriptor
        }

        func close(_ descriptor: Int32) -> Int32 {
            descriptors.withLock { _ = $0.remove(descriptor) }
            return system.close(descriptor)
        }

        func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
            if descriptors.withLock({ $0.contains(descriptor) }), let code = failure.withLock({ $0 }) {
                errno = code
                return -1
            }
            return system.read(descriptor, buffer)
        }

        func write(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int { system.write(descriptor, buffer) }
        func fstat(_ descriptor: Int32, _ status: inout stat) -> Int32 { system.fstat(descriptor, &status) }
        func lstat(_ path: String, _ status: inout stat) -> Int32 { system.lstat(path, &status) }
        func fsync(_ descriptor: Int32) -> Int32 { system.fsync(descriptor) }
        func fdatasync(_ descriptor: Int32) -> Int32 { system.fdatasync(descriptor) }
        func ftruncate(_ descriptor: Int32, _ length: off_t) -> Int32 { system.ftruncate(descriptor, length) }
        func rename(_ source: String, _ destination: String) -> Int32 { system.rename(source, destination) }
        func unlink(_ path: String) -> Int32 { system.unlink(path) }
        func mkdir(_ path: String, _ mode: mode_t) -> Int32 { system.mkdir(path, mode) }
        func access(_ path: String, _ mode: Int32) -> Int32 { system.access(path, mode) }
    }

    @Test func aSettingsFileThatCannotBeReadKeepsTheDefaultsRefusesChangesAndIsReadOnceItCanBe() throws {
        let directory = try TemporaryDirectory()
        try HouseholdSettingsFile(directory: directory.path, defaults: Self.defaults, logger: Self.silent).change(to: Self.chosen)
        let path = directory.path + "/settings.json"
        let before = try #require(TestFiles.read(path))

        let calls = FailingReads(of: "settings.json")
        calls.failure.withLock { $0 = EIO }
        let file = HouseholdSettingsFile(directory: directory.path, defaults: Self.defaults, logger: Self.silent, files: DurableFile(calls: calls))
        #expect(file.settings == Self.defaults, "the defaults apply meanwhile")
        #expect(file.readFailure?.errno == EIO)
        do {
            try file.change(to: Self.defaults)
            Issue.record("a change was written over settings nobody could read")
        } catch let refusal as HouseholdSettingsUnreadable {
            #expect(refusal.description.contains("could not be read (EIO"), "\(refusal)")
        }
        #expect(TestFiles.read(path) == before, "left as it was")
        #expect(TestFiles.names(in: directory.path) == ["settings.json"], "not set aside")

        let putIntoEffect = Mutex<[HouseholdSettings]>([])
        file.whenReadAgain { settings in putIntoEffect.withLock { $0.append(settings) } }
        _ = file.settings
        #expect(putIntoEffect.withLock { $0 }.isEmpty, "still unread: nothing new to put into effect")
        calls.failure.withLock { $0 = nil }
        #expect(file.settings == Self.chosen, "read once it can be")
        #expect(file.settings == Self.chosen)
        #expect(putIntoEffect.withLock { $0 } == [Self.chosen], "put into effect once, when it was read")
        #expect(file.readFailure == nil)
        try file.change(to: Self.defaults)
        #expect(HouseholdSettingsFile(directory: directory.path, defaults: Self.chosen, logger: Self.silent).settings == Self.defaults)
    }

    @Test func nightHoursAFileWithoutThemHasTheConfigurationsAndAClientSendingNoneKeepsThem() throws {
        let directory = try TemporaryDirectory()
        var defaults = Self.defaults
        defaults.nightHours = "22:00-06:30"
        let written = #"{"volumeDB":-3,"crescendoSeconds":0,"snoozeSeconds":300,"autoSilenceSeconds":600}"#
        try TestFiles.write(Array(written.utf8), to: directory.path + "/settings.json")
        let file = HouseholdSettingsFile(directory: directory.path, defaults: defaults, logger: Self.silent)
        #expect(file.settings.nightHours == "22:00-06:30" && file.settings.volumeDB == -3)

        var off = Self.chosen
        off.nightHours = "off"
        #expect(try file.change(to: off).night == nil)
        #expect(try file.change(to: Self.chosen).nightHours == "off", "a client that predates night hours keeps them")
        for bad in ["22:00-22:00", "22-06", "off ", ""] {
            var refused = Self.chosen
            refused.nightHours = bad
            #expect(throws: SettingsError.self, "\(bad)") { try file.change(to: refused) }
        }
        let reread = HouseholdSettingsFile(directory: directory.path, defaults: defaults, logger: Self.silent)
        #expect(reread.settings.nightHours == "off")
    }

    @Test func aDamagedSettingsFileIsSetAsideAndTheDefaultsApply() throws {
        let directory = try TemporaryDirectory()
        try TestFiles.write(Array("{\"volumeDB\":".utf8), to: directory.path + "/settings.json")
        let file = HouseholdSettingsFile(directory: directory.path, defaults: Self.defaults, logger: Self.silent)
        #expect(file.settings == Self.defaults)
        #expect(TestFiles.names(in: directory.path) == ["settings.json.damaged"])
        try file.change(to: Self.chosen)
        #expect(HouseholdSettingsFile(directory: directory.path, defaults: Self.defaults, logger: Self.silent).settings == Self.chosen)
    }
}

/// A settings file that could not be read is tried again on the clock, with nobody looking.
@Suite(.timeLimit(.minutes(5))) struct HouseholdSettingsRetryTests {
    @Test func aFileThatCouldNotBeReadIsTriedAgainUntilItIs() async throws {
        let directory = try TemporaryDirectory()
        try HouseholdSettingsFile(directory: directory.path, defaults: HouseholdSettingsFileTests.defaults, logger: HouseholdSettingsFileTests.silent)
            .change(to: HouseholdSettingsFileTests.chosen)
        let calls = HouseholdSettingsFileTests.FailingReads(of: "settings.json")
        calls.failure.withLock { $0 = EIO }
        let file = HouseholdSettingsFile(
            directory: directory.path, defaults: HouseholdSettingsFileTests.defaults, logger: HouseholdSettingsFileTests.silent,
            files: DurableFile(calls: calls))
        let (readAgain, arrived) = AsyncStream.makeStream(of: HouseholdSettings.self)
        file.whenReadAgain { arrived.yield($0) }
        let clock = ManualWallClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let retrying = Task { await file.keepReadingUntilRead(clock: clock) }
        await clock.waitForSleepers()
        clock.advance(by: HouseholdSettingsFile.readRetryInterval)
        await clock.waitForSleepers()
        #expect(file.readFailure?.errno == EIO, "still failing: tried again and waiting")
        calls.failure.withLock { $0 = nil }
        clock.advance(by: HouseholdSettingsFile.readRetryInterval)
        var settings = readAgain.makeAsyncIterator()
        #expect(await settings.next() == HouseholdSettingsFileTests.chosen)
        await retrying.value
    }
}
