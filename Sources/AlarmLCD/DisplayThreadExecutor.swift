import Glibc
import LinuxSupport
import Synchronization

/// The executor of ``HD44780Display``: runs the actor's jobs one at a time on a pthread of its
/// own, so the blocking I2C transfers and `nanosleep` delays never occupy Swift's cooperative pool.
///
/// A thread starts when a job arrives and nothing is draining, and ends once the queue is empty,
/// so an idle or dropped display holds no thread (one start a second costs tens of µs).
final class DisplayThreadExecutor: SerialExecutor {
    /// As `ps -L` and `top -H` show it; at most 15 characters (the kernel's limit).
    static let threadName = "alarmd-lcd"

    private struct Queue {
        var jobs: [UnownedJob] = []
        var draining = false
    }

    private let queue = Mutex(Queue())

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let startsDrain = queue.withLock { queue in
            queue.jobs.append(job)
            defer { queue.draining = true }
            return !queue.draining
        }
        if startsDrain { startThread() }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Runs jobs until the queue is empty. Only one drain runs at a time (`draining`), which is
    /// what makes this executor serial.
    private func drain() {
        while let job = nextJob() {
            job.runSynchronously(on: asUnownedSerialExecutor())
        }
    }

    private func nextJob() -> UnownedJob? {
        queue.withLock { queue in
            guard !queue.jobs.isEmpty else {
                queue.draining = false
                return nil
            }
            return queue.jobs.removeFirst()
        }
    }

    private func startThread() {
        let created = DetachedThread.start { [self] in
            DetachedThread.nameCurrentThread(Self.threadName)
            drain()
        }
        // No thread to be had: drain here rather than never. It blocks this one thread.
        if created != 0 { drain() }
    }
}
