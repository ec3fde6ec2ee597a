import AlarmClient
import AlarmControl
import AlarmProtocol
import AlarmKitCore
import AlarmTestKit
import FoundationEssentials
import Glibc
import Testing

/// The daemon on a real failing file system, through the real socket: a full or read-only state
/// directory never keeps an alarm ringing, and a state file that cannot be read never keeps the
/// daemon from starting.
@Suite(.serialized, .timeLimit(.minutes(5))) struct StorageFaultDaemonTests {
    typealias Daemon = DaemonServiceTests.Daemon

    static let isRoot = geteuid() == 0
    static let canSwitchUser = isRoot && access("/usr/bin/setpriv", X_OK) == 0

    static func status(_ daemon: Daemon) async throws -> StatusReport {
        let client = ControlClient(path: daemon.socket)
        defer { client.close() }
        let result = try await client.request("status")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try decoder.decode(StatusReport.self, from: JSONEncoder().encode(result))
    }

    static func storagePart(_ daemon: Daemon) async throws -> StatusReport.Part {
        try #require(try await status(daemon).parts.first { $0.name == "storage" })
    }

    // MARK: - Starting on damaged state

    enum DamagedState: String, CaseIterable, CustomTestStringConvertible {
        case journalIsADirectory, journalIsAFIFO, journalIsASymlinkLoop, historyIsAFIFO, storeIsADirectory
        case stateDirectoryIsAFile

        func apply(in state: String) {
            switch self {
            case .journalIsADirectory: mkdir(state + "/alarms.journal", 0o700)
            case .journalIsAFIFO: mkfifo(state + "/alarms.journal", 0o600)
            case .journalIsASymlinkLoop: symlink(state + "/alarms.journal", state + "/alarms.journal")
            case .historyIsAFIFO: mkfifo(state + "/history.jsonl", 0o600)
            case .storeIsADirectory: mkdir(state + "/alarms.store", 0o700)
            case .stateDirectoryIsAFile:
                rmdir(state)
                _ = try? TestFiles.write(Array("not a directory".utf8), to: state)
            }
        }

        var testDescription: String { rawValue }
    }

    @Test(arguments: DamagedState.allCases)
    func theDaemonReachesReadyWithAStateFileItCannotRead(_ damage: DamagedState) async throws {
        let directory = try TemporaryDirectory()
        let state = directory.path + "/state"
        mkdir(state, 0o700)
        damage.apply(in: state)
        let daemon = try Daemon(directory: directory.path)
        defer { daemon.stop(SIGTERM) }
        try await daemon.waitUntilServing()
        // READY=1 is sent, and then logged, once the socket serves.
        _ = try await TestFiles.waitUntil(daemon.log, contains: "<5>alarmd ready")
        let storage = try await Self.storagePart(daemon)
        #expect(storage.state == "fault", "\(storage)")
        #expect(storage.detail?.contains("set aside at start") == true, "\(storage)")
    }

    /// A journal left root-owned after a manual restore, and a daemon that runs as its own user:
    /// it starts, leaves the journal as it is, refuses changes (asking nobody) and says so, and
    /// reads it once it may.
    @Test(.enabled(if: canSwitchUser, "needs root and setpriv to run alarmd as another user"))
    func theDaemonReachesReadyWithAJournalItMayNotReadAndReadsItOnceItMay() async throws {
        let directory = try TemporaryDirectory()
        let state = directory.path + "/state"
        mkdir(state, 0o700)
        try TestFiles.write(Array("alarmd-journal 1\n".utf8), to: state + "/alarms.journal")
        chmod(state + "/alarms.journal", 0o600)
        chown(state, 65534, 65534)
        chmod(directory.path, 0o777)
        // The socket goes to the daemon's own group: the default, `alarmd`, may exist on this
        // machine (the package installed), and a daemon outside it cannot give the socket to it.
        let ownGroup = try #require(getgrgid(65534).map { String(cString: $0.pointee.gr_name) })
        try TestFiles.write(Array("socket_group = \"\(ownGroup)\"\n".utf8), to: directory.path + "/alarmd.toml")
        chmod(directory.path + "/alarmd.toml", 0o644)
        let daemon = try Daemon(directory: directory.path, asUser: 65534)
        defer { daemon.stop(SIGTERM) }
        try await daemon.waitUntilServing()
        let storage = try await Self.storagePart(daemon)
        #expect(storage.state == "fault")
        #expect(storage.detail?.contains("cannot be read since") == true, "\(storage)")
        #expect(storage.detail?.contains("alarms.journal: Permission denied") == true, "\(storage)")
        #expect(TestFiles.names(in: state).filter { $0.hasPrefix("alarms.") } == ["alarms.journal"], "left as it is")
        let client = ControlClient(path: daemon.socket)
        defer { client.close() }
        do {
            _ = try await client.requestAuthorization()
            Issue.record("a question was asked while the store cannot be read")
        } catch AlarmOperationError.storageFailure(let message) {
            #expect(message.contains("could not be read (EACCES"), "\(message)")
        }

        chown(state + "/alarms.journal", 65534, 65534)
        // The daemon reads it again on its own backoff (2 s, then 4 s, ...), and logs the read
        // that succeeds before it answers anything else.
        _ = try await TestFiles.waitUntil(daemon.log, contains: "<5>Alarm store read again", timeout: .seconds(40))
        #expect(try await Self.storagePart(daemon).state == "ok")
        _ = try await client.requestAuthorization()
    }

    // MARK: - A full or read-only file system

    enum Failure: String, CaseIterable, CustomTestStringConvertible {
        case full, readOnly
        var errnoName: String { self == .full ? "ENOSPC" : "EROFS" }
        var testDescription: String { rawValue }
    }

    /// The state directory on a small tmpfs of its own, filled up or remounted read-only while
    /// an alarm rings: `stop` over the socket silences it at once, the status names the errno,
    /// another change is refused, and once the file system works the stop is written (a
    /// kill -9 after that loses nothing).
    @Test(.enabled(if: isRoot, "needs root to mount a tmpfs"), arguments: Failure.allCases)
    func stopOverTheSocketSilencesWhenTheStateDirectoryFails(_ failure: Failure) async throws {
        let directory = try TemporaryDirectory()
        let state = directory.path + "/state"
        mkdir(state, 0o700)
        let mount = try await ChildProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", state])
        try #require(mount.exitStatus == 0, "\(mount)")
        defer { _ = umount2(state, Int32(MNT_DETACH)) }

        var daemon = try Daemon(directory: directory.path)
        var started = [daemon]
        defer { for running in started { running.stop(SIGKILL) } }
        try await daemon.waitUntilServing()
        let client = ControlClient(path: daemon.socket)
        defer { client.close() }
        var updates = client.alarmUpdates().makeAsyncIterator()
        _ = await updates.next()
        let ringing = Alarm.ID()
        let quiet = Alarm.ID()
        _ = try await client.schedule(id: quiet, definition: Self.fixed(at: Date().addingTimeInterval(3_600)))
        _ = try await client.schedule(id: ringing, definition: Self.fixed(at: Date().addingTimeInterval(1)))
        while let list = await updates.next(), list.first(where: { $0.id == ringing })?.state != .alerting {}

        let filler = state + "/filler"
        var accepted = [quiet]
        switch failure {
        case .full:
            let descriptor = open(filler, O_WRONLY | O_CREAT, 0o600)
            var block = [UInt8](repeating: 0xAA, count: 4096)
            while block.withUnsafeMutableBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
            close(descriptor)
            // The journal's last page still takes a few small entries: a full disk refuses the
            // first change that needs a new block.
            for _ in 0..<200 {
                let extra = Alarm.ID()
                do {
                    _ = try await client.schedule(id: extra, definition: Self.fixed(at: Date().addingTimeInterval(3_600)))
                    accepted.append(extra)
                } catch AlarmOperationError.storageFailure {
                    break
                }
            }
        case .readOnly:
            // The kernel refuses (EBUSY) while a file is open for writing: the alert's own save,
            // which the engine writes after the alert has started, may be under way. Each try is
            // a process of its own, so a few hundred cover any write; none is a timed wait.
            var remount = try await ChildProcess.run("/bin/mount", ["-o", "remount,ro", state])
            for _ in 0..<300 where remount.standardError.contains("busy") {
                remount = try await ChildProcess.run("/bin/mount", ["-o", "remount,ro", state])
            }
            try #require(remount.exitStatus == 0, "\(remount)")
        }

        try await client.perform(.stop, id: ringing)
        #expect(try await client.alarms().map(\.id) == accepted, "silenced at once, in memory")
        let storage = try await Self.storagePart(daemon)
        #expect(storage.state == "fault")
        #expect(storage.detail?.contains(failure.errnoName) == true, "\(storage)")
        do {
            try await client.perform(.cancel, id: quiet)
            Issue.record("a change that cannot be saved was accepted")
        } catch AlarmOperationError.storageFailure {
        }
        #expect(try await client.alarms().map(\.id) == accepted)

        switch failure {
        case .full: unlink(filler)
        case .readOnly: _ = try await ChildProcess.run("/bin/mount", ["-o", "remount,rw", state])
        }
        // The next change writes what could not be written, and ends the fault.
        _ = try await client.schedule(id: Alarm.ID(), definition: Self.fixed(at: Date().addingTimeInterval(7_200)))
        #expect(try await Self.storagePart(daemon).state == "ok")
        client.close()
        daemon.stop(SIGKILL)
        daemon = try Daemon(directory: directory.path)
        started.append(daemon)
        try await daemon.waitUntilServing()
        let restarted = ControlClient(path: daemon.socket)
        defer { restarted.close() }
        let ids = try await restarted.alarms().map(\.id)
        #expect(ids.count == accepted.count + 1 && !ids.contains(ringing), "the stop survived kill -9")
        let log = String(decoding: TestFiles.read(directory.path + "/alarmd.log") ?? [], as: UTF8.self)
        #expect(log.components(separatedBy: "Alarm store cannot be written").count == 2, "logged once: \(log)")
    }

    static func fixed(at date: Date) -> AlarmDefinition {
        AlarmDefinition(
            schedule: .fixed(date), countdownDuration: nil,
            presentation: AlarmPresentation(alert: .init(title: "Wake up", stopButton: .stop, secondaryButton: nil)))
    }
}
