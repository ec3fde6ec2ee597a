import Glibc

/// Runs a blocking call on a thread of its own, so it never blocks Swift's cooperative pool.
///
/// Used for waits that block in the kernel (`poll` on a timerfd, `read` on an inotify fd).
enum BlockingCall {
    /// Starts `body` on a new detached thread and suspends until it returns.
    static func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            let job = Job { continuation.resume(returning: body()) }
            start(job)
        }
    }

    private final class Job: Sendable {
        let work: @Sendable () -> Void
        init(_ work: @escaping @Sendable () -> Void) { self.work = work }
    }

    private static func start(_ job: Job) {
        let context = Unmanaged.passRetained(job).toOpaque()
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        defer { pthread_attr_destroy(&attributes) }
        // A static entry point, not a closure: see PLATFORM-FACTS on pthread_create and MainActor.
        let created = pthread_create(&thread, &attributes, threadEntry, context)
        if created != 0 {
            // No thread to be had: run it here rather than never. It blocks this one thread.
            Unmanaged<Job>.fromOpaque(context).takeRetainedValue().work()
        }
    }

    private static let threadEntry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
        guard let context else { return nil }
        Unmanaged<Job>.fromOpaque(context).takeRetainedValue().work()
        return nil
    }
}
