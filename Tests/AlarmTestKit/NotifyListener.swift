import Glibc

/// systemd's side of `Type=notify` for a test that starts `alarmd`: a `NOTIFY_SOCKET` the test
/// owns, and a pipe whose write end only the child holds, so that waiting for `READY=1` ends on
/// that datagram or on the child's exit (the pipe's end-of-file), never on a polling interval.
///
/// ```swift
/// let notify = try NotifyListener(directory: directory)
/// notify.addToChild(&actions)
/// let pid = try ChildProcess.spawn(alarmd, arguments, environment: notify.environment, actions: &actions)
/// notify.childStarted()
/// guard try notify.waitForReady() == .ready else { ... }
/// ```
public final class NotifyListener {
    public enum Outcome: Equatable, Sendable {
        case ready
        /// The child exited (or closed its inherited descriptors) before `READY=1`.
        case exited
        case timedOut
    }

    public let path: String
    private let receiver: DatagramReceiver
    private let exitRead: Int32
    private var exitWrite: Int32
    /// Every datagram received so far, in order.
    public private(set) var messages: [String] = []

    /// The descriptor the child inherits the pipe's write end as; it keeps it until it exits.
    public static let childDescriptor: Int32 = 3

    /// Binds a socket in `directory`, named after the pipe's descriptor number so that listeners
    /// alive at the same time (a daemon and its restart) never share a path. It accepts datagrams
    /// from any user, for daemons started as another.
    public init(directory: String) throws {
        // Close-on-exec, so children that other tests start never hold it. (Glibc's module does
        // not export pipe2; a spawn between these calls could still inherit it, which would only
        // delay noticing that this child exited.)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ChildProcessError(message: "pipe: errno \(errno)") }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        (exitRead, exitWrite) = (ends[0], ends[1])
        path = directory + "/notify-\(exitRead).sock"
        unlink(path)
        do {
            receiver = try DatagramReceiver(path: path)
            guard chmod(path, 0o666) == 0 else { throw ChildProcessError(message: "chmod \(path): errno \(errno)") }
        } catch {
            close(exitRead)
            close(exitWrite)
            throw error
        }
    }

    deinit {
        close(exitRead)
        if exitWrite >= 0 { close(exitWrite) }
        unlink(path)
    }

    /// `NOTIFY_SOCKET`, for the child's environment.
    public var environment: [String: String] { ["NOTIFY_SOCKET": path] }

    /// Gives the child the pipe's write end as ``childDescriptor`` (dup2 clears close-on-exec).
    public func addToChild(_ actions: inout posix_spawn_file_actions_t) {
        posix_spawn_file_actions_adddup2(&actions, exitWrite, Self.childDescriptor)
    }

    /// Closes this process's write end, so the pipe ends when the child does; call it right after
    /// the spawn.
    public func childStarted() {
        if exitWrite >= 0 { close(exitWrite) }
        exitWrite = -1
    }

    /// Blocks until `READY=1` arrives, the child exits, or `timeout` passes.
    public func waitForReady(timeout: Duration = .seconds(30)) throws -> Outcome {
        let deadline = ContinuousClock.now + timeout
        while true {
            if messages.contains(where: Self.saysReady) { return .ready }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return .timedOut }
            var descriptors = [pollfd(fd: receiver.descriptor, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: exitRead, events: Int16(POLLIN), revents: 0)]
            let milliseconds = Int32(min(left / .milliseconds(1) + 1, 60_000))
            let ready = poll(&descriptors, 2, milliseconds)
            if ready < 0 {
                guard errno == EINTR else { throw ChildProcessError(message: "poll: errno \(errno)") }
                continue
            }
            if descriptors[0].revents != 0 { messages += receiver.pending() }
            if messages.contains(where: Self.saysReady) { return .ready }
            if descriptors[1].revents != 0 { return .exited }
        }
    }

    private static func saysReady(_ message: String) -> Bool {
        message.split(separator: "\n").contains("READY=1")
    }
}
