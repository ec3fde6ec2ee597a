import Glibc

/// A child process whose standard output is read line by line while it runs, and which can be
/// signalled: for tests that kill a program part-way through.
///
/// ```swift
/// let child = try RunningChild(ChildProcess.product("alarm-store-crash-child"), [directory, "7"],
///                              standardErrorPath: directory + "/stderr")
/// let first = try child.readLine()
/// child.kill(SIGKILL)
/// let rest = try child.readRemainingLines()   // everything it wrote before it died
/// let end = child.wait()                   // end.signal == SIGKILL
/// ```
///
/// - Important: `readLine()` blocks the calling thread until a line or end of file arrives.
public final class RunningChild {
    /// How a child ended.
    public struct Termination: Sendable, Hashable, CustomStringConvertible {
        public var exitStatus: Int32?
        public var signal: Int32?

        public var description: String {
            if let signal { return "killed by signal \(signal)" }
            return "exited with status \(exitStatus ?? -1)"
        }
    }

    public let pid: pid_t
    private var output: Int32
    private var buffer: [UInt8] = []
    private var termination: Termination?

    /// Starts `executable` with stdin from /dev/null, stdout to a pipe and stderr to a file.
    public init(_ executable: String, _ arguments: [String], standardErrorPath: String) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw ChildProcessError(message: "pipe failed: errno \(errno)")
        }
        // So that no other child spawned by the test process keeps the write end open, which would
        // hold off end of file. (Glibc's module does not export pipe2.)
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, standardErrorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        do {
            pid = try ChildProcess.spawn(executable, arguments, environment: [:], actions: &actions)
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[1])
        output = ends[0]
    }

    deinit {
        if termination == nil {
            Glibc.kill(pid, SIGKILL)
            _ = wait()
        }
        if output >= 0 { close(output) }
    }

    /// The next line without its newline; `nil` at end of file. A last line without a newline
    /// (the child died while writing it) is not returned.
    ///
    /// - Throws: ``ChildProcessError`` if nothing arrives for `timeoutSeconds`: a hung child fails
    ///   the test instead of hanging it. The timeout is a safety net, never part of what is tested.
    public func readLine(timeoutSeconds: Int32 = 60) throws -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            guard output >= 0 else { return nil }
            var ready = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, timeoutSeconds * 1000)
            if polled < 0 && errno == EINTR { continue }
            if polled == 0 {
                throw ChildProcessError(message: "child \(pid) wrote no line for \(timeoutSeconds) s")
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                close(output)
                output = -1
                return nil
            }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Every line still to come, up to end of file (once the child is dead, what it wrote before).
    public func readRemainingLines() throws -> [String] {
        var lines: [String] = []
        while let line = try readLine() {
            lines.append(line)
        }
        return lines
    }

    /// Sends `signal` to the child; harmless once it has ended.
    /// Waits until the child has made `count` more write(2) calls than when this was called, or
    /// has exited; reads `syscw` in /proc/PID/io, spinning without sleeping.
    public func waitForWriteCalls(_ count: Int) {
        guard let start = writeCalls() else { return }
        while let current = writeCalls(), current < start + count {}
    }

    /// The child's write(2) calls so far, or `nil` once it is gone.
    private func writeCalls() -> Int? {
        guard let file = fopen("/proc/\(pid)/io", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 128)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("syscw:") {
                return Int(text.dropFirst(6).filter { !$0.isWhitespace })
            }
        }
        return nil
    }

    public func kill(_ signal: Int32) {
        guard termination == nil else { return }
        Glibc.kill(pid, signal)
    }

    /// Waits for the child to end and reaps it.
    @discardableResult
    public func wait() -> Termination {
        if let termination { return termination }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { break }
        }
        let ended = (status & 0x7f) == 0
            ? Termination(exitStatus: (status >> 8) & 0xff, signal: nil)
            : Termination(exitStatus: nil, signal: status & 0x7f)
        termination = ended
        return ended
    }
}
