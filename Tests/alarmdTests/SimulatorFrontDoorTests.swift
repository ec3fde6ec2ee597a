import AlarmClient
import AlarmKitCore
import AlarmProtocol
import AlarmTestKit
import CTestSupport
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization
import Testing

/// What a newcomer meets running `alarmd --simulate`: its socket answers `status` as the
/// service's does, and a phone page address that is taken is said plainly, once.
@Suite(.timeLimit(.minutes(5))) struct SimulatorFrontDoorTests {
    @Test func theSimulatorAnswersStatusWithTheSimulatedBoardsHealth() async throws {
        let simulator = try RunningSimulator(arguments: ["--web", "off"])
        defer { simulator.quit() }
        let client = ControlClient(path: simulator.socket)
        defer { client.close() }
        let report = try await simulator.untilListening { try await client.request("status", as: StatusReport.self) }
        #expect(report.board == "simulated")
        #expect(report.clockTrusted)
        #expect(Set(report.parts.map(\.name)) == ["buttons", "led", "display", "sound", "light", "storage"])
        #expect(report.parts.allSatisfy { $0.state == "ok" }, "\(report.parts)")
    }

    @Test func aTakenPageAddressIsOneLineNamingTheOptionAndNoAddressIsShown() async throws {
        let taken = try TCPListener()
        let address = "127.0.0.1:\(taken.port)"
        let simulator = try RunningSimulator(arguments: ["--web", address])
        defer { simulator.quit() }
        let line = await simulator.screen.firstLine(containing: "No phone page")
        #expect(line.contains("\(address) is in use by another program"), "\(line)")
        #expect(line.contains("--web HOST:PORT"), "\(line)")
        #expect(!simulator.screen.text.contains("Phone page: http"), "the address was shown though nothing serves it")
        withExtendedLifetime(taken) {}
    }
}

/// `alarmd --simulate` in a pseudo-terminal 300 columns wide (so log lines are whole), its
/// screen read as it is drawn.
final class RunningSimulator: Sendable {
    let pid: pid_t
    let socket: String
    let screen: ScreenText
    private let directory: TemporaryDirectory
    private let controller: Int32

    init(arguments: [String]) throws {
        directory = try TemporaryDirectory()
        socket = directory.path + "/simulator.sock"
        var controller: Int32 = -1
        var terminal: Int32 = -1
        try #require(alarmd_pseudo_terminal_open(&controller, &terminal) == 0)
        try #require(alarmd_terminal_set_size(terminal, 40, 300) == 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            posix_spawn_file_actions_adddup2(&actions, terminal, descriptor)
        }
        pid = try ChildProcess.spawn(
            DaemonServiceTests.alarmd, ["--simulate", "--sound", "silent", "--socket", socket] + arguments,
            environment: [:], actions: &actions)
        close(terminal)
        self.controller = controller
        screen = ScreenText(reading: controller)
    }

    /// `body`'s answer once the simulator's socket is there: a refused connection is the
    /// simulator still starting, and is retried when its screen next changes.
    func untilListening<T>(_ body: () async throws -> T) async throws -> T {
        while true {
            do {
                return try await body()
            } catch AlarmOperationError.serviceUnavailable {
                await screen.nextChange()
            }
        }
    }

    func quit() {
        _ = write(controller, "q", 1)
        var status: Int32 = 0
        if waitpid(pid, &status, 0) != pid { kill(pid, SIGKILL) }
        close(controller)
    }
}

/// Everything written to a terminal, kept as text (escape sequences and all), read on a thread
/// of its own until the program exits.
final class ScreenText: Sendable {
    private let state = Mutex((text: "", waiters: [CheckedContinuation<Void, Never>]()))

    init(reading descriptor: Int32) {
        DispatchQueue.global().async { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                let waiters = state.withLock { state in
                    state.text += String(decoding: buffer[..<count], as: UTF8.self)
                    defer { state.waiters = [] }
                    return state.waiters
                }
                waiters.forEach { $0.resume() }
            }
        }
    }

    var text: String { state.withLock { $0.text } }

    /// Returns when more has been written.
    func nextChange() async {
        await withCheckedContinuation { continuation in
            state.withLock { $0.waiters.append(continuation) }
        }
    }

    /// The first line on the screen holding `text`, once it is drawn (the screen's rows are
    /// drawn between escape sequences: the line is cut at the next one).
    func firstLine(containing needle: String) async -> String {
        while true {
            let found = state.withLock { state -> String? in
                guard let range = state.text.firstRange(of: needle) else { return nil }
                return String(state.text[range.lowerBound...].prefix { $0 != "\u{1B}" && $0 != "\r" && $0 != "\n" })
            }
            if let found { return found }
            await nextChange()
        }
    }
}

/// A TCP port taken on 127.0.0.1 for the test's lifetime.
final class TCPListener: Sendable {
    let descriptor: Int32
    let port: UInt16

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && listen(descriptor, 1) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }
}
