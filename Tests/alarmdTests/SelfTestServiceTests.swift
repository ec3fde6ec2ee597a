import AlarmTestKit
import FoundationEssentials
import Glibc
import Testing

/// `alarmd selftest` beside a running service: the service checks the parts it holds; whoever
/// cannot ask it is told in one line what to run.
@Suite(.timeLimit(.minutes(5))) struct SelfTestServiceTests {
    static let canSwitchUser = geteuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0

    func selftest(socket: String, board: String = "simulated", _ arguments: [String] = [], asNobody: Bool = false) async throws
        -> ChildProcess.Result
    {
        let command = [AlarmdCommandTests.alarmd, "selftest", "--boards-directory", AlarmdCommandTests.boards, "--board", board,
                       "--socket", socket, "--show-seconds", "0"] + arguments
        guard asNobody else { return try await ChildProcess.run(command[0], Array(command.dropFirst())) }
        return try await ChildProcess.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups"] + command)
    }

    @Test func theRunningServiceChecksItsOwnPartsAndSaysSo() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try DaemonServiceTests.Daemon(directory: directory.path)
        defer { daemon.stop(SIGTERM) }
        try await daemon.waitUntilServing()

        let result = try await selftest(socket: daemon.socket, ["--non-interactive"])
        #expect(result.exitStatus == 0, "\(result.standardOutput)\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("The running alarmd (\(daemon.socket)) checks the parts it holds."))
        #expect(lines.contains("PASS  led: blinked for 0 s (driver accepted it; not confirmed by a person)"))
        #expect(lines.contains { $0.hasPrefix("PASS  display: test pattern and glyphs shown for 0 s, then the screen redrawn whole") })
        #expect(lines.contains { $0.hasPrefix("PASS  sound: tone played for 0 s") })
        #expect(lines.contains("PASS  buttons: simulated: the simulator's keys press them (presses not checked: --non-interactive)"))
        #expect(lines.contains { $0.hasPrefix("PASS  light: rose to full in four steps") })
        #expect(lines.last == "All 5 checked parts work.")
        let log = String(decoding: TestFiles.read(daemon.log) ?? [], as: UTF8.self)
        #expect(log.contains("Self-test done"))
    }

    /// A person answers for each part the service showed.
    @Test func aPersonConfirmsWhatTheServiceShowed() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try DaemonServiceTests.Daemon(directory: directory.path)
        defer { daemon.stop(SIGTERM) }
        try await daemon.waitUntilServing()
        let command = [AlarmdCommandTests.alarmd, "selftest", "--boards-directory", AlarmdCommandTests.boards, "--board", "simulated",
                       "--socket", daemon.socket, "--show-seconds", "0", "--only", "display", "--only", "sound"]
        let result = try await ChildProcess.run(command[0], Array(command.dropFirst()), input: "y\nn\n")
        #expect(result.exitStatus == 1)
        #expect(result.standardOutput.contains("then the clock again? [y/n]"))
        #expect(result.standardOutput.contains("FAIL  sound: the service played the tone but nobody heard it"))
        #expect(result.standardOutput.contains("1 of 2 parts failed: sound."))
    }

    /// The parts the service cannot drive fail with the service's own error and the usual hint.
    @Test func aPartMissingFromTheServicesBoardFailsWithItsCauseAndHint() async throws {
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
        let daemon = try DaemonServiceTests.Daemon(directory: directory.path, board: board)
        defer { daemon.stop(SIGTERM) }
        try await daemon.waitUntilServing()

        let result = try await selftest(socket: daemon.socket, board: board, ["--non-interactive", "--only", "display", "--only", "sound"])
        #expect(result.exitStatus == 1)
        let output = result.standardOutput
        #expect(output.contains("FAIL  display: /dev/i2c-97@0x27: not available"), "\(output)")
        #expect(output.contains("enable I2C (`sudo raspi-config nonint do_i2c 0`)"))
        #expect(output.contains("FAIL  sound: hw:NoSuchCard,0,0: not available"))
        #expect(output.contains("2 of 2 parts failed: display, sound."))
    }

    @Test(.enabled(if: canSwitchUser, "needs root and setpriv to run alarmd selftest as another user"))
    func someoneTheSocketRefusesIsToldToUseSudoAndGets77() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try DaemonServiceTests.Daemon(directory: directory.path)
        defer { daemon.stop(SIGTERM) }
        try await daemon.waitUntilServing()
        chmod(directory.path, 0o711)

        let result = try await selftest(socket: daemon.socket, ["--non-interactive"], asNobody: true)
        #expect(result.exitStatus == 77)
        #expect(result.standardError.contains(
            "alarmd is running and holds the board, and its socket \(daemon.socket) refuses you: run `sudo alarmd selftest"),
            "\(result.standardError)")
        #expect(!result.standardOutput.contains("PASS"))
    }

    @Test(.enabled(if: canSwitchUser, "needs root and setpriv to run alarmd selftest as another user"))
    func aUserWhoIsNoAdministratorIsToldToUseSudoAndGets77() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try DaemonServiceTests.Daemon(directory: directory.path)
        defer { daemon.stop(SIGTERM) }
        try await daemon.waitUntilServing()
        chmod(directory.path, 0o711)
        chmod(daemon.socket, 0o666)

        let result = try await selftest(socket: daemon.socket, ["--non-interactive"], asNobody: true)
        #expect(result.exitStatus == 77)
        #expect(result.standardError.contains("only root and its admin group may have it check its parts: run `sudo alarmd selftest"),
                "\(result.standardError)")
    }
}
