import AlarmTestKit
import FoundationEssentials
import Glibc
import LinuxSupport

/// A real Mosquitto broker for a test, on a free loopback port, with `settings` added to its
/// listener (`allow_anonymous true` unless told otherwise). Started by ``start()``, which returns
/// once the broker says it runs; stopped by ``stop()`` (and, at the latest, when it is released).
///
/// The broker is Debian's: `/usr/sbin/mosquitto` when the package is installed, else the copy
/// `deploy/install-build-deps` unpacks into `~/.cache/alarmd/mosquitto` (installing the package
/// would start a broker on the machine).
final class TestBroker: @unchecked Sendable {
    // @unchecked: `pid`, `port` and `hasRun` change only in start() and stop(), which a test
    // calls in turn, before any client is given the port.
    let directory: TemporaryDirectory
    /// Below the kernel's ephemeral range (32768 up by default), from which every outgoing
    /// connection takes its source port: a port there could be taken by a client between its
    /// choice and the broker's bind, or while a test has the broker stopped.
    private(set) var port: UInt16
    private let settings: String
    private var pid: pid_t = 0
    private var hasRun = false

    static var executable: String? { program("sbin/mosquitto") }

    /// `relative` under /usr, from the installed package or the unpacked copy.
    static func program(_ relative: String) -> String? {
        let environment = ProcessInfo.processInfo.environment
        let cache = (environment["XDG_CACHE_HOME"] ?? (environment["HOME"] ?? "/root") + "/.cache") + "/alarmd/mosquitto"
        return ["/usr/" + relative, cache + "/usr/" + relative].first { access($0, X_OK) == 0 }
    }

    init(settings: String = "allow_anonymous true") throws {
        directory = try TemporaryDirectory()
        self.settings = settings
        port = try Self.freePort()
    }

    private func writeConfiguration() throws {
        // `user root`: run as root (CI), mosquitto would otherwise become the `mosquitto` user
        // before reading the password file in this root-only directory.
        let user = getuid() == 0 ? "user root\n" : ""
        let configuration = "\(user)persistence false\nlog_dest stderr\nlog_type error\nlog_type warning\nlog_type notice\nlog_type information\n"
            + "listener \(port) 127.0.0.1\n\(settings)\n"
        try TestFiles.write(Array(configuration.utf8), to: directory.path + "/mosquitto.conf")
    }

    deinit {
        if pid > 0 {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    /// Starts the broker and waits until its log says it runs (or it exits). The first start
    /// moves to another port if another test's listener took this one; a restart keeps it.
    func start() async throws {
        for attempt in 1... {
            try writeConfiguration()
            let log = try await launch()
            if log.contains(" running") {
                hasRun = true
                return
            }
            guard !hasRun, attempt < 10, log.contains("Address already in use") else { throw BrokerError("mosquitto did not start: \(log)") }
            port = try Self.freePort()
        }
    }

    /// Spawns the broker; returns its log up to the line saying it runs, or all of it if it exits.
    private func launch() async throws -> String {
        guard let executable = Self.executable else {
            throw BrokerError( "no mosquitto broker: run deploy/install-build-deps")
        }
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw BrokerError( "pipe: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 2)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        pid = try ChildProcess.spawn(executable, ["-c", directory.path + "/mosquitto.conf"], environment: [:], actions: &actions)
        close(pipe[1])
        let reader = pipe[0]
        let log = await DetachedThread.run { () -> String in
            var seen = ""
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !seen.contains(" running") {
                let count = read(reader, &chunk, chunk.count)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }  // it exited
                seen += String(decoding: chunk[..<count], as: UTF8.self)
            }
            return seen
        }
        // The rest of its log is not needed; a full pipe must not stop it.
        DetachedThread.start {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while read(reader, &chunk, chunk.count) > 0 {}
            close(reader)
        }
        if !log.contains(" running") {
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            pid = 0
        }
        return log
    }

    /// Stops the broker and waits for it: SIGKILL, as a broker that loses its power goes (the
    /// test process's threads may block SIGTERM, and a spawned child inherits that mask).
    func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        pid = 0
    }

    /// A port below the ephemeral range that nothing listens on now.
    static func freePort() throws -> UInt16 {
        for _ in 0..<100 {
            let port = UInt16.random(in: 20_000..<32_768)
            if try canBind(port) { return port }
        }
        throw BrokerError("no free port between 20000 and 32767")
    }

    private static func canBind(_ port: UInt16) throws -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BrokerError( "socket: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

struct BrokerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
