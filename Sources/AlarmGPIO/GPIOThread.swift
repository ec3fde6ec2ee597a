import Glibc

/// Starts a backend's loop on a detached pthread of its own: it blocks in `poll`, and that must
/// never happen on Swift's cooperative pool.
enum GPIOThread {
    /// Runs `body` on a new detached thread; `false` if the system refused to create one.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Job(body)).toOpaque()
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        // A static entry point, not a closure literal: see PLATFORM-FACTS on pthread_create.
        guard pthread_create(&thread, &attributes, entry, context) == 0 else {
            Unmanaged<Job>.fromOpaque(context).release()
            return false
        }
        return true
    }

    /// Blocks the calling thread for `interval`: the fallback when waiting on descriptors fails.
    static func pause(_ interval: Duration) {
        let (seconds, attoseconds) = interval.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR {
            request = remaining
        }
    }

    private final class Job: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    private static let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
        guard let context else { return nil }
        Unmanaged<Job>.fromOpaque(context).takeRetainedValue().body()
        return nil
    }
}
