import Dispatch
import Glibc

/// Runs a program as a child process with its output captured, for tests that exercise the
/// executables as scripts and people do.
public struct ChildProcess {
    /// What a finished child left behind.
    public struct Result: Sendable {
        public var exitStatus: Int32?
        public var signal: Int32?
        public var standardOutput: String
        public var standardError: String
    }

    /// The directory holding the package's built products (next to the running test binary).
    public static var productsDirectory: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        precondition(length > 0, "cannot read /proc/self/exe")
        let path = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var components = path.split(separator: "/", omittingEmptySubsequences: false)
        // .build/debug/alarmdPackageTests.xctest (a file on Linux)
        components.removeLast()
        return components.joined(separator: "/")
    }

    /// The path of a product built by this package, e.g. `alarmctl`.
    public static func product(_ name: String) -> String {
        productsDirectory + "/" + name
    }

    /// What every child gets, plus what a caller adds. Children never inherit this process's
    /// environment: a test suite may be changing TZ with setenv at the same time (glibc's
    /// environment is not safe to read while another thread writes it).
    public static let baseEnvironment = ["PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"]

    /// Runs `executable` with `arguments` to completion and captures stdout and stderr; stdin
    /// reads `input` (or /dev/null).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil
    ) throws -> Result {
        let output = try TemporaryDirectory()
        let stdoutPath = output.path + "/stdout"
        let stderrPath = output.path + "/stderr"
        let stdinPath = output.path + "/stdin"
        try TestFiles.write(Array((input ?? "").utf8), to: stdinPath)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 0, input == nil ? "/dev/null" : stdinPath, O_RDONLY, 0)
        let pid = try spawn(executable, arguments, environment: environment, actions: &actions)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw ChildProcessError(message: "waitpid failed: errno \(errno)") }
        }
        return Result(
            exitStatus: (status & 0x7f) == 0 ? (status >> 8) & 0xff : nil,
            signal: (status & 0x7f) != 0 ? status & 0x7f : nil,
            standardOutput: readFile(stdoutPath),
            standardError: readFile(stderrPath))
    }

    /// ``run(_:_:environment:input:)`` on a thread of its own: waiting for a child must never
    /// hold one of the cooperative pool's few threads, which the code under test (an in-process
    /// server, the runtime) needs while the child runs.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result {
                    try run(executable, arguments, environment: environment, input: input) as Result
                })
            }
        }
    }

    /// Starts `executable` with ``baseEnvironment`` plus `environment`, returning its pid; the
    /// caller waits for it.
    public static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String],
        actions: inout posix_spawn_file_actions_t
    ) throws -> pid_t {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let variables = baseEnvironment.merging(environment) { _, added in added }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard result == 0 else {
            throw ChildProcessError(message: "cannot start \(executable): errno \(result)")
        }
        return pid
    }

    static func readFile(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

public struct ChildProcessError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
