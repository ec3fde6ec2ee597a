import AlarmClient
import AlarmControl
import AlarmProtocol
import AlarmKitCore
import AlarmTestKit
import FoundationEssentials
import Glibc
import Testing

/// `alarmd` as a service, headless on the simulated board: start-up checks, a real socket, and
/// an acknowledged alarm surviving `kill -9`.
@Suite(.timeLimit(.minutes(5))) struct DaemonServiceTests {
    static let alarmd = ChildProcess.product("alarmd")
    static let board = AlarmdCommandTests.repository + "/board/simulated.toml"

    /// A running daemon in `directory`, stopped with SIGKILL (or SIGTERM) by the test.
    final class Daemon {
        let pid: pid_t
        let socket: String
        let log: String
        private let notify: NotifyListener

        /// - Parameters:
        ///   - workingDirectory: where it runs (default: this process's working directory).
        ///   - uid: the user it runs as (through setpriv; default: this process's).
        init(
            directory: String, board: String = DaemonServiceTests.board, extraArguments: [String] = [],
            workingDirectory: String? = nil, asUser uid: UInt32? = nil
        ) throws {
            socket = directory + "/control.sock"
            log = directory + "/alarmd.log"
            let config = directory + "/alarmd.toml"
            if access(config, F_OK) != 0 { try TestFiles.write([], to: config) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            var command = [DaemonServiceTests.alarmd, "--config", config, "--board", board, "--state-dir", directory + "/state",
                           "--socket", socket] + extraArguments
            // Glibc's posix_spawn_file_actions_addchdir_np is not visible to Swift; env -C
            // changes directory and then execs alarmd in the same process.
            if let workingDirectory { command = ["/usr/bin/env", "-C", workingDirectory] + command }
            if let uid { command = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] + command }
            notify = try NotifyListener(directory: directory)
            notify.addToChild(&actions)
            pid = try ChildProcess.spawn(command[0], Array(command.dropFirst()), environment: notify.environment, actions: &actions)
            notify.childStarted()
        }

        /// Waits (at most 30 s) for `READY=1` on the test's own `NOTIFY_SOCKET`, which alarmd sends
        /// once its control socket serves, or for the daemon to exit.
        func waitUntilServing() async throws {
            let outcome = try notify.waitForReady()
            guard outcome != .ready else { return }
            var status: Int32 = 0
            let exited = outcome == .exited && waitpid(pid, &status, 0) == pid
            let output = String(decoding: TestFiles.read(log) ?? [], as: UTF8.self)
            Issue.record(exited
                ? "alarmd exited with status \((status >> 8) & 0xff) before serving: \(output)"
                : "alarmd did not start serving: \(output)")
        }

        /// Sends `signal` and reaps the process; returns its wait status.
        @discardableResult
        func stop(_ signal: Int32) -> Int32 {
            kill(pid, signal)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            return status
        }
    }

    static func wakeUp() -> AlarmDefinition {
        AlarmDefinition(
            schedule: .relative(.init(time: .init(hour: 7, minute: 0), repeats: .weekly([.monday]))),
            countdownDuration: .init(preAlert: nil, postAlert: 540),
            presentation: AlarmPresentation(
                alert: .init(title: "Wake up", stopButton: .stop, secondaryButton: .snooze, secondaryButtonBehavior: .countdown)))
    }

    @Test func anAcknowledgedAlarmSurvivesKillDashNine() async throws {
        let directory = try TemporaryDirectory()
        var daemon = try Daemon(directory: directory.path)
        try await daemon.waitUntilServing()
        let client = ControlClient(path: daemon.socket)
        let id = Alarm.ID()
        _ = try await client.schedule(id: id, definition: Self.wakeUp())
        client.close()
        // No chance to flush anything: the alarm must already be on disk when schedule returned.
        let status = daemon.stop(SIGKILL)
        #expect(status & 0x7f == SIGKILL)

        daemon = try Daemon(directory: directory.path)
        defer { daemon.stop(SIGTERM) }
        try await daemon.waitUntilServing()
        let again = ControlClient(path: daemon.socket)
        defer { again.close() }
        let alarms = try await again.alarms()
        #expect(alarms.map(\.id) == [id])
        #expect(alarms.first?.state == .scheduled)
    }

    @Test func sigtermShutsDownCleanlyAndRemovesTheSocket() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try Daemon(directory: directory.path)
        try await daemon.waitUntilServing()
        let status = daemon.stop(SIGTERM)
        #expect(status & 0x7f == 0, "exited, not killed")
        #expect((status >> 8) & 0xff == 0)
        #expect(access(daemon.socket, F_OK) != 0, "the socket file is removed")
        let log = String(decoding: TestFiles.read(daemon.log) ?? [], as: UTF8.self)
        #expect(log.contains("<5>alarmd ready"))
        #expect(log.contains("<5>alarmd stopped"))
        #expect(!log.contains("<3>"), "no errors: \(log)")
    }

    /// A real board whose parts are all missing: the daemon still starts and serves, and
    /// `status` names each fault, the sound card's before any alarm has tried to play.
    @Test func missingPartsAreNamedInTheStatusFromTheStart() async throws {
        let directory = try TemporaryDirectory()
        let board = directory.path + "/absent.toml"
        try TestFiles.write(Array("""
            name = "absent"
            [gpio]
            chip = "/dev/gpiochip-absent"
            stop = "GPIO17"
            snooze = "GPIO27"
            led = "GPIO22"
            [display]
            bus = 97
            address = 0x27
            [sound]
            device = "hw:NoSuchCard,0,0"

            """.utf8), to: board)
        let daemon = try Daemon(directory: directory.path, board: board)
        defer { daemon.stop(SIGTERM) }
        try await daemon.waitUntilServing()
        let client = ControlClient(path: daemon.socket)
        defer { client.close() }
        let result = try await client.request("status")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let report = try decoder.decode(StatusReport.self, from: JSONEncoder().encode(result))
        let sound = try #require(report.parts.first { $0.name == "sound" })
        #expect(sound.state == "fault")
        #expect(sound.detail?.contains("NoSuchCard") == true, "\(sound)")
    }

    @Test(.enabled(if: access("/usr/share/alarmd/boards", F_OK) != 0, "profiles are installed: names are looked up there"))
    func aBoardNameIsFoundInTheCheckoutsBoardDirectory() async throws {
        let directory = try TemporaryDirectory()
        mkdir(directory.path + "/board", 0o755)
        try TestFiles.write(TestFiles.read(Self.board) ?? [], to: directory.path + "/board/bedside.toml")
        let daemon = try Daemon(directory: directory.path, board: "bedside", workingDirectory: directory.path)
        defer { daemon.stop(SIGTERM) }
        try await daemon.waitUntilServing()
    }

    @Test func aBadConfigurationStopsStartUpWithFileLineAndKey() async throws {
        let directory = try TemporaryDirectory()
        let config = directory.path + "/alarmd.toml"
        try TestFiles.write(Array("[alarms]\nsnooze = \"soon\"\n".utf8), to: config)
        let result = try await ChildProcess.run(
            Self.alarmd, ["--config", config, "--board", Self.board, "--state-dir", directory.path + "/state",
                          "--socket", directory.path + "/control.sock"])
        #expect(result.exitStatus == 78)
        #expect(result.standardError.contains("\(config):2: alarms.snooze:"), "\(result.standardError)")
        #expect(access(directory.path + "/state", F_OK) != 0, "nothing was touched")
    }
}
