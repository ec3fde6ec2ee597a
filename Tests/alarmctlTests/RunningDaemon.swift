import AlarmClient
import AlarmControl
import AlarmEngine
import AlarmProtocol
import AlarmTestKit
import FoundationEssentials
import Glibc
import Logging

/// `alarmd` running headless on the simulated board in a fresh directory (empty configuration
/// file, its own state directory and socket), for `alarmctl` to talk to.
///
/// ```swift
/// let daemon = try RunningDaemon()
/// defer { daemon.stop() }
/// let result = try await daemon.alarmctl(["list", "--json"])
/// ```
///
/// `stop()` sends SIGTERM and reaps it; if a test ends without stopping it (a thrown error), the
/// deinitializer kills it with SIGKILL, so no daemon outlives its test.
final class RunningDaemon {
    let directory: TemporaryDirectory
    let socket: String
    let pid: pid_t
    private var ended: Ended?

    /// How the daemon ended.
    struct Ended: Equatable {
        var exitStatus: Int32?
        var signal: Int32?
    }

    /// The package's root, where `board/simulated.toml` is.
    static let repository: String = {
        var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // Tests/alarmctlTests/RunningDaemon.swift
        return components.joined(separator: "/")
    }()

    /// Starts alarmd and waits (at most 30 s) until it tells its `NOTIFY_SOCKET` `READY=1`, which
    /// it does once the control socket serves.
    ///
    /// - Parameters:
    ///   - configuration: the text of its configuration file (empty: the defaults).
    ///   - state: what its store holds when it starts (`nil`: nothing, a first start).
    init(configuration text: String = "", state: StoredState? = nil) throws {
        directory = try TemporaryDirectory()
        let configuration = directory.path + "/alarmd.toml"
        // A sounds directory with one sound, `birds.wav` (a second of a 1 kHz tone), unless the
        // configuration names its own.
        var text = text
        if !text.contains("[sound]") {
            let sounds = directory.path + "/sounds"
            mkdir(sounds, 0o755)
            try TestFiles.write(
                SineWAV.bytes(sampleRate: 48_000, bits: 16, seconds: 1, channels: [(1_000, 0.5)]), to: sounds + "/birds.wav")
            text += "\n[sound]\nsounds_directory = \"\(sounds)\"\n"
        }
        try TestFiles.write(Array(text.utf8), to: configuration)
        if let state {
            mkdir(directory.path + "/state", 0o700)
            try AlarmStore(directory: directory.path + "/state", logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
                .save(state)
        }
        socket = directory.path + "/control.sock"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, directory.path + "/stdout", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, directory.path + "/stderr", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let notify = try NotifyListener(directory: directory.path)
        notify.addToChild(&actions)
        pid = try ChildProcess.spawn(
            ChildProcess.product("alarmd"),
            [
                "--config", configuration, "--board", Self.repository + "/board/simulated.toml",
                "--state-dir", directory.path + "/state", "--socket", socket,
            ],
            environment: notify.environment.merging(["TZ": "UTC"]) { _, given in given }, actions: &actions)
        notify.childStarted()
        do {
            try waitUntilReady(notify)
        } catch {
            stop()
            throw error
        }
    }

    deinit {
        if ended == nil {
            kill(pid, SIGKILL)
            _ = reap()
        }
    }

    private func waitUntilReady(_ notify: NotifyListener) throws {
        switch try notify.waitForReady() {
        case .ready: return
        case .exited:
            _ = stop()
            throw DaemonStartError("alarmd exited before it was ready: \(standardError)")
        case .timedOut:
            throw DaemonStartError("alarmd was not ready within 30 s: \(standardError)")
        }
    }

    /// Ends the daemon with SIGTERM, as systemd does, and reaps it.
    @discardableResult
    func stop() -> Ended {
        if let ended { return ended }
        kill(pid, SIGTERM)
        let termination = reap()
        ended = termination
        return termination
    }

    private func reap() -> Ended {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { break }
        }
        return (status & 0x7f) == 0
            ? Ended(exitStatus: (status >> 8) & 0xff, signal: nil)
            : Ended(exitStatus: nil, signal: status & 0x7f)
    }

    /// The file the daemon's stderr (its log) goes to.
    var standardErrorPath: String { directory.path + "/stderr" }

    /// What the daemon wrote to stderr (its log).
    var standardError: String {
        String(decoding: TestFiles.read(standardErrorPath) ?? [], as: UTF8.self)
    }

    /// Runs alarmctl against this daemon through `ALARMD_SOCKET`, in UTC unless `environment`
    /// says otherwise.
    func alarmctl(_ arguments: [String], environment: [String: String] = [:]) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            ChildProcess.product("alarmctl"), arguments,
            environment: ["ALARMD_SOCKET": socket, "TZ": "UTC"].merging(environment) { _, given in given })
    }

    /// Lets any user reach the socket (the directory searchable, the socket 0666), so that the
    /// daemon's own checks are what refuses them.
    func openToEveryone() {
        chmod(directory.path, 0o711)
        chmod(socket, 0o666)
    }

    /// Runs alarmctl as user nobody (65534, no groups) through setpriv, in UTC.
    func alarmctlAsNobody(_ arguments: [String]) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", ChildProcess.product("alarmctl")] + arguments,
            environment: ["ALARMD_SOCKET": socket, "TZ": "UTC"])
    }

    /// Whether this alarmd answers `alarmRecords`, alarmctl's source of titles and countdown ends.
    func reportsRecords() async throws -> Bool {
        let client = ControlClient(path: socket)
        defer { client.close() }
        do {
            _ = try await client.request("alarmRecords")
            return true
        } catch let error as ControlError where error.code == .unknownOperation {
            return false
        }
    }
}

/// alarmd did not start listening.
struct DaemonStartError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Parsing what alarmctl printed.
enum Output {
    /// `text` as JSON; throws if it is not.
    static func json(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// The lines of `text`, without empty ones.
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init)
    }

    /// The keys of a JSON object, sorted; empty for anything else.
    static func keys(_ value: JSONValue?) -> [String] {
        guard case .object(let members)? = value else { return [] }
        return members.keys.sorted()
    }

    /// The elements of a JSON array; empty for anything else.
    static func array(_ value: JSONValue?) -> [JSONValue] {
        guard case .array(let elements)? = value else { return [] }
        return elements
    }
}
