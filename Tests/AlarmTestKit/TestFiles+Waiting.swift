import Glibc
import LinuxSupport

extension TestFiles {
    /// Suspends until the file at `path` (a child's log) contains `text`; returns the file's text
    /// then. The file is read again on each inotify event for a write to it, so the wait ends on
    /// the write itself; it runs on a thread of its own, never blocking the cooperative pool.
    ///
    /// ```swift
    /// let log = try await TestFiles.waitUntil(daemon.log, contains: "alarmd ready")
    /// ```
    ///
    /// - Throws: ``ChildProcessError`` if the file cannot be watched, or does not contain `text`
    ///   after `timeout`: a child that never writes it fails the test instead of hanging it. The
    ///   timeout is a safety net, never part of what is tested.
    public static func waitUntil(_ path: String, contains text: String, timeout: Duration = .seconds(30)) async throws -> String {
        try await waitUntil(
            watching: path, timeout: timeout,
            failure: { "\(path) did not come to contain \"\(text)\" within \(timeout); it holds: \(String(decoding: read(path) ?? [], as: UTF8.self))" }
        ) {
            let content = String(decoding: read(path) ?? [], as: UTF8.self)
            return content.contains(text) ? content : nil
        }
    }

    /// Suspends until `check` returns a value, calling it first and then on each inotify event
    /// for a write to the file at `path` (which must exist): for a condition on what a writer
    /// (a child process, a writer thread) puts in that file. Returns the value.
    ///
    /// ```swift
    /// try await TestFiles.waitUntil(watching: recording, failure: { "nothing recorded" }) { size(recording) > 0 ? () : nil }
    /// ```
    ///
    /// - Throws: ``ChildProcessError`` with `failure()` if `check` still returns `nil` after
    ///   `timeout`, the safety net against a hang, never part of what is tested.
    public static func waitUntil<Value: Sendable>(
        watching path: String, timeout: Duration = .seconds(30), failure: @escaping @Sendable () -> String,
        _ check: @escaping @Sendable () -> Value?
    ) async throws -> Value {
        try await DetachedThread.run {
            Result { () throws(ChildProcessError) -> Value in
                try blockUntil(watching: path, timeout: timeout, failure: failure, check)
            }
        }.get()
    }

    private static func blockUntil<Value>(
        watching path: String, timeout: Duration, failure: () -> String, _ check: () -> Value?
    ) throws(ChildProcessError) -> Value {
        guard let inotify = Inotify() else { throw ChildProcessError(message: "no inotify instance for \(path)") }
        // Watching before the first check: a write between the check and the poll is then an
        // event waiting, never missed.
        guard inotify.add(path, mask: UInt32(IN_MODIFY)) != nil else {
            throw ChildProcessError(message: "cannot watch \(path): errno \(errno)")
        }
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = check() { return value }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw ChildProcessError(message: failure()) }
            var descriptor = pollfd(fd: inotify.descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, Int32(min(left / .milliseconds(1) + 1, 60_000))) < 0, errno != EINTR {
                throw ChildProcessError(message: "poll on the inotify descriptor for \(path): errno \(errno)")
            }
            _ = inotify.readEvents()
        }
    }
}
