import AlarmTestKit
import AlarmTime
import Glibc
import LinuxSupport
import Synchronization
import Testing

/// Whatever is put where a zone file should be (a FIFO, a device, a file far too large), reading
/// the zone returns at once with an error: a plain `open` of a FIFO waits for a writer for ever,
/// which would hang the engine that asked. Each read runs on a thread of its own, so a read that
/// blocked fails the test at its time limit instead of hanging the run.
@Suite(.timeLimit(.minutes(5))) struct ZoneFileKindTests {
    @Test func aFIFOAsLocaltimeIsRefusedAtOnce() async throws {
        let scratch = try TemporaryDirectory()
        let localtime = scratch.path + "/localtime"
        #expect(mkfifo(localtime, 0o644) == 0)
        let database = TimeZoneDatabase()
        let error = try #require(await readingError { try database.systemZone(environment: [:], localtimePath: localtime) })
        #expect(error == .notRegularFile(path: localtime, kind: "a FIFO"))
        #expect(error.description == "cannot read time zone file \(localtime): a FIFO, not a regular file")

        let provider = SystemTimeZoneProvider(environment: [:], localtimePath: localtime)
        #expect(await readingError { try provider.currentZone() } == .notRegularFile(path: localtime, kind: "a FIFO"))
    }

    @Test func aLinkToAFIFOInTheZoneDirectoryIsRefusedAtOnce() async throws {
        let scratch = try TemporaryDirectory()
        mkdir(scratch.path + "/zoneinfo", 0o755)
        mkdir(scratch.path + "/zoneinfo/Europe", 0o755)
        let zone = scratch.path + "/zoneinfo/Europe/Berlin"
        #expect(mkfifo(zone, 0o644) == 0)
        let localtime = scratch.path + "/localtime"
        #expect(symlink(zone, localtime) == 0)
        let database = TimeZoneDatabase(root: scratch.path + "/zoneinfo")

        #expect(await readingError { try database.systemZone(environment: [:], localtimePath: localtime) }
            == .notRegularFile(path: localtime, kind: "a FIFO"))
        #expect(await readingError { try database.rules(named: "Europe/Berlin") }
            == .notRegularFile(path: zone, kind: "a FIFO"))
        #expect(await readingError { try database.systemZone(environment: ["TZ": "Europe/Berlin"]) }
            == .notRegularFile(path: zone, kind: "a FIFO"))
        #expect(await readingError { try database.systemZone(environment: ["TZ": ":" + zone]) }
            == .notRegularFile(path: zone, kind: "a FIFO"))
    }

    @Test func aDeviceOrAHugeFileIsRefused() async throws {
        let database = TimeZoneDatabase()
        // /dev/zero would be read until the size limit; a terminal would block like a FIFO.
        #expect(await readingError { try database.rules(atPath: "/dev/zero", identifier: "zero") }
            == .notRegularFile(path: "/dev/zero", kind: "a device"))

        let scratch = try TemporaryDirectory()
        let huge = scratch.path + "/huge"
        let descriptor = open(huge, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        #expect(ftruncate(descriptor, off_t(SystemFile.maximumSize + 1)) == 0)  // sparse: no disk used
        close(descriptor)
        #expect(await readingError { try database.rules(atPath: huge, identifier: "huge") }
            == .unreadableFile(path: huge, errno: EFBIG))
    }

    /// The error of a zone read on a thread of its own, once it returns; `nil` if it succeeded,
    /// and the test fails if it blocks.
    private func readingError(_ read: @escaping @Sendable () throws -> TimeZoneRules) async -> TimeZoneError? {
        let outcome = Mutex<TimeZoneError??>(nil)
        let finished = await unlessCancelled {
            let error = await DetachedThread.run { () -> TimeZoneError? in
                do {
                    _ = try read()
                    return nil
                } catch {
                    return error as? TimeZoneError
                }
            }
            outcome.withLock { $0 = .some(error) }
        }
        #expect(finished, "the read blocked")
        return outcome.withLock { $0 } ?? nil
    }
}
