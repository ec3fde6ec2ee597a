import Glibc

/// A detached pthread of our own, for work that blocks in the kernel (`poll`, `read`, a PCM
/// write, an I2C transfer): such work must never run on Swift's cooperative pool, whose few
/// threads would all be stuck.
///
/// ```swift
/// guard DetachedThread.start({ loop.run() }) == 0 else { /* no thread: report it */ }
/// let line = await DetachedThread.run { readLine() }   // suspends until it returns
/// ```
public enum DetachedThread {
    /// Runs `body` on a new detached thread. Returns 0, or the `pthread_create` error (the
    /// body then does not run).
    @discardableResult
    public static func start(_ body: @escaping @Sendable () -> Void) -> Int32 {
        let context = Unmanaged.passRetained(Job(body)).toOpaque()
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        // A static entry point, not a closure literal: see PLATFORM-FACTS on pthread_create.
        let created = pthread_create(&thread, &attributes, entry, context)
        if created != 0 {
            Unmanaged<Job>.fromOpaque(context).release()
        }
        return created
    }

    /// Runs `body` on a new thread and suspends until it returns; runs it on the calling thread
    /// if no thread can be had (blocking that one thread rather than never running it).
    public static func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            if start({ continuation.resume(returning: body()) }) != 0 {
                continuation.resume(returning: body())
            }
        }
    }

    /// Names the calling thread for `top -H`, `ps -L` and `/proc/PID/task/TID/comm` (at most 15
    /// bytes are kept). Best effort: without `/proc` the thread keeps the process's name.
    public static func nameCurrentThread(_ name: String) {
        // Through procfs: `pthread_setname_np` needs `_GNU_SOURCE`, which Swift's Glibc lacks.
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = name.withCString { write(descriptor, $0, strlen($0)) }
        _ = close(descriptor)
    }

    private final class Job: Sendable {
        let work: @Sendable () -> Void
        init(_ work: @escaping @Sendable () -> Void) { self.work = work }
    }

    private static let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
        guard let context else { return nil }
        Unmanaged<Job>.fromOpaque(context).takeRetainedValue().work()
        return nil
    }
}

/// Blocks the calling thread for at least `duration` (`nanosleep`, resumed after signals). Linux
/// adds its timer slack (50 µs by default) to every sleep; never call it on Swift's cooperative pool.
public func sleepThread(for duration: Duration) {
    guard duration > .zero else { return }
    let (seconds, attoseconds) = duration.components
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR {
        request = remaining
    }
}
