import Glibc
import Synchronization

/// Our own pthreads for blocking socket work, so it never blocks Swift's cooperative pool (as
/// `BlockingCall` in AlarmTime does for timerfd waits).
enum ControlThread {
    /// Runs `body` on a new detached thread.
    ///
    /// - Throws: ``ControlSocketError`` if no thread can be created.
    static func start(_ body: @escaping @Sendable () -> Void) throws(ControlSocketError) {
        let context = Unmanaged.passRetained(Job(body)).toOpaque()
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        // A static entry point, not a closure: see PLATFORM-FACTS on pthread_create and MainActor.
        let created = pthread_create(&thread, &attributes, entry, context)
        if created != 0 {
            Unmanaged<Job>.fromOpaque(context).release()
            throw ControlSocketError("pthread_create", path: "", errno: created)
        }
    }

    /// Runs `body` on a new thread and suspends until it returns; runs it here if no thread can be
    /// had (blocking this one thread rather than never running it).
    static func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            do {
                try start { continuation.resume(returning: body()) }
            } catch {
                continuation.resume(returning: body())
            }
        }
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

/// A one-shot flag that tasks can await: set once by a thread when it has finished.
final class Completion: Sendable {
    private let state = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func complete() {
        let waiters = state.withLock { state in
            state.done = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if !state.done { state.waiters.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }
}
