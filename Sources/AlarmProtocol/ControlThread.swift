import AlarmTime
import Glibc
import LinuxSupport
import Synchronization

/// Our own pthreads for blocking socket work (``DetachedThread``), reporting a failure to start
/// one as a ``ControlSocketError``.
package enum ControlThread {
    package static func start(_ body: @escaping @Sendable () -> Void) throws(ControlSocketError) {
        let created = DetachedThread.start(body)
        if created != 0 { throw ControlSocketError("pthread_create", path: "", errno: created) }
    }

    package static func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await DetachedThread.run(body)
    }
}

/// A one-shot flag that tasks can await: set once by a thread when it has finished.
package final class Completion: Sendable {
    private let state = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    package init() {}

    package func complete() {
        let waiters = state.withLock { state in
            state.done = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    package func wait() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if !state.done { state.waiters.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }
}
