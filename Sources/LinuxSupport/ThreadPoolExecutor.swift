import CLinuxSupport
import Glibc

#if compiler(>=6.3)
@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
#endif

/// Swift concurrency's global executor for the daemon: a few threads of its own that sleep on a
/// condition variable until a job arrives or a timed job (`Task.sleep`) is due, and otherwise
/// never wake.
///
/// ```swift
/// ThreadPoolExecutor.installAsGlobalExecutor()   // first thing in `main`, before any task
/// Task.detached { await service.run() }         // runs on its threads
/// ```
///
/// Why not libdispatch's pool, the default on Linux: once any job has run on one of its global
/// queues, libdispatch checks its pool from a timer that fires every second for the rest of the
/// process's life (`_dispatch_workq_monitor_pools` in its `event/workqueue.c`, which reads each
/// worker's `/proc/TID/stat`). That timer alone is 60 wake-ups a minute of an idle `alarmd`
/// (`perf stat -e context-switches`, Benchmarks/idle-wakeups.sh); this executor wakes only for
/// work.
///
/// Jobs run first in, first out, whatever their priority: the daemon has a few tasks, all of
/// them short. Blocking calls stay on threads of their own (``DetachedThread``), as they must on
/// any cooperative pool. Every job queued wakes a waiting thread, even one a worker queues while
/// its own job goes on: the engine publishes an alert and then writes its history, and the
/// appliance must start the sound meanwhile, not after (leaving the second thread asleep cost the
/// alert 17 ms in the QEMU guest, BENCHMARKS.md).
///
/// - Important: Nothing may use libdispatch's global queues in a process that wants the quiet
///   (no `DispatchQueue.global()`, no `DispatchSource`): the first such job starts the timer.
public final class ThreadPoolExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: the pthread mutex and condition variable below guard `queue` and the flags;
    // they are C handles Swift cannot see through.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue = JobQueue<PoolJob>()
    /// Whether a thread waits for ``JobQueue/nextDeadline`` (the others wait for a signal only,
    /// so a timed job wakes one thread, not all of them).
    private var timekeeping = false

    /// The executor ``installAsGlobalExecutor()`` installs.
    public static let shared = ThreadPoolExecutor(threads: max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))

    /// Starts `threads` threads, which run jobs enqueued from now on until the process ends.
    public init(threads: Int) {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // Deadlines are on CLOCK_MONOTONIC, so setting the wall clock neither delays nor hurries them.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        for _ in 0..<max(threads, 1) {
            DetachedThread.start { [self] in work() }
        }
    }

    /// A job and how to run it: one from the runtime's global hooks (no executor preference) runs
    /// as the runtime's own global executor would run it; one of a task that prefers this
    /// executor runs with that preference.
    struct PoolJob {
        var job: UnownedJob
        var preferringThis = false

        func run(on executor: ThreadPoolExecutor) {
            if preferringThis {
                job.runSynchronously(on: executor.asUnownedTaskExecutor())
            } else {
                alarmd_run_job_generic(unsafeBitCast(job, to: UnsafeMutableRawPointer.self))
            }
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        enqueue(PoolJob(job: UnownedJob(job), preferringThis: true))
    }

    /// Queues a job of the global hooks to run as soon as a thread is free.
    func enqueueGlobal(_ job: UnownedJob) {
        enqueue(PoolJob(job: job))
    }

    private func enqueue(_ job: PoolJob) {
        pthread_mutex_lock(mutex)
        queue.append(job)
        pthread_mutex_unlock(mutex)
        pthread_cond_signal(condition)
    }

    /// Queues `job` to run once `CLOCK_MONOTONIC` reads `deadline` nanoseconds.
    func enqueue(_ job: UnownedJob, atMonotonic deadline: Int64) {
        pthread_mutex_lock(mutex)
        let earliest = queue.schedule(PoolJob(job: job), at: deadline)
        pthread_mutex_unlock(mutex)
        // The timekeeper may be waiting for a later deadline: every thread looks again, and one
        // of them keeps time for the new one. Rare enough (a sleep's start) to wake them all.
        if earliest { pthread_cond_broadcast(condition) } else { pthread_cond_signal(condition) }
    }

    private func work() {
        pthread_mutex_lock(mutex)
        while true {
            let now = Self.monotonicNow()
            if let job = queue.next(now: now) {
                let backlog = queue.hasJob(now: now)
                pthread_mutex_unlock(mutex)
                if backlog { pthread_cond_signal(condition) }
                job.run(on: self)
                pthread_mutex_lock(mutex)
                continue
            }
            if let deadline = queue.nextDeadline, !timekeeping {
                timekeeping = true
                var until = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
                _ = pthread_cond_timedwait(condition, mutex, &until)
                timekeeping = false
            } else {
                pthread_cond_wait(condition, mutex)
            }
        }
    }

    /// `CLOCK_MONOTONIC`'s reading `nanoseconds` from now; a sleep too long to represent waits
    /// for ever rather than wrapping round to a deadline already past.
    static func monotonicDeadline(after nanoseconds: Int64) -> Int64 {
        let (deadline, overflow) = monotonicNow().addingReportingOverflow(max(nanoseconds, 0))
        return overflow ? .max : deadline
    }

    /// `CLOCK_MONOTONIC` in nanoseconds.
    public static func monotonicNow() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

// MARK: - Installing

extension ThreadPoolExecutor {
    /// Makes ``shared`` the executor of every task and default actor that has no executor of its
    /// own, and of `Task.sleep`. Two ways in, for the two runtimes alarmd is built with:
    /// - the Swift runtime's `swift_task_enqueueGlobal*_hook` variables (the ones SwiftNIO sets to
    ///   run tasks on its event loops), whose addresses C takes: a statically linked runtime does
    ///   not export them to `dlsym`. Swift 6.0's runtime (the arm64 packages) sends every global
    ///   job and every `Task.sleep` through them.
    /// - From Swift 6.3, `Task.sleep` asks the current scheduling executor, which is the default
    ///   executor when nothing else is, and no longer reaches the delay hooks: without a default
    ///   executor of ours, the first sleep anywhere (a watchdog ping, a library's request timeout)
    ///   went to libdispatch's pool and started its timer. So the pool is also the default
    ///   executor (SE-0470's executor factory, installed as the compiler would for a `@main` type
    ///   declaring `DefaultExecutorFactory`), and schedules sleeps itself (``SchedulingExecutor``).
    ///
    /// Call it once, first in `main`, before any task starts.
    public static func installAsGlobalExecutor() {
        let global: UnsafeMutableRawPointer = alarmd_enqueue_global_hook()
        let delay: UnsafeMutableRawPointer = alarmd_enqueue_global_with_delay_hook()
        let deadline: UnsafeMutableRawPointer = alarmd_enqueue_global_with_deadline_hook()
        _ = shared
        global.assumingMemoryBound(to: GlobalHook?.self).pointee = { job, _ in
            ThreadPoolExecutor.shared.enqueueGlobal(job)
        }
        delay.assumingMemoryBound(to: DelayHook?.self).pointee = { nanoseconds, job, _ in
            ThreadPoolExecutor.shared.enqueue(job, atMonotonic: ThreadPoolExecutor.monotonicDeadline(after: Int64(clamping: nanoseconds)))
        }
        deadline.assumingMemoryBound(to: DeadlineHook?.self).pointee = { seconds, nanoseconds, _, _, clock, job, _ in
            let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            let (target, carry) = whole.addingReportingOverflow(nanoseconds)
            ThreadPoolExecutor.shared.enqueue(job, atMonotonic: ThreadPoolExecutor.monotonicDeadline(overflow || carry ? .max : target, clock: clock))
        }
        #if compiler(>=6.3)
        _createExecutors(factory: GlobalExecutors.self)
        #endif
    }

    /// `deadline` on the runtime's clock `clock` (1: `ContinuousClock`, `CLOCK_BOOTTIME` on
    /// Linux; 2: `SuspendingClock`, `CLOCK_MONOTONIC`) as a `CLOCK_MONOTONIC` reading.
    static func monotonicDeadline(_ deadline: Int64, clock: Int32) -> Int64 {
        guard clock == 1, deadline != .max else { return deadline }
        return monotonicDeadline(after: deadline &- alarmd_boottime_nanoseconds())
    }

    // The hooks' types, as the runtime declares them (`SWIFT_CC(swift)` function pointers, which
    // is what a `@convention(thin)` Swift function is); the last argument is the runtime's own
    // implementation, unused here.
    typealias GlobalOriginal = @convention(thin) (UnownedJob) -> Void
    typealias GlobalHook = @convention(thin) (UnownedJob, GlobalOriginal) -> Void
    typealias DelayOriginal = @convention(thin) (UInt64, UnownedJob) -> Void
    typealias DelayHook = @convention(thin) (UInt64, UnownedJob, DelayOriginal) -> Void
    typealias DeadlineOriginal = @convention(thin) (Int64, Int64, Int64, Int64, Int32, UnownedJob) -> Void
    typealias DeadlineHook = @convention(thin) (Int64, Int64, Int64, Int64, Int32, UnownedJob, DeadlineOriginal) -> Void
}

#if compiler(>=6.3)
/// The executors ``ThreadPoolExecutor/installAsGlobalExecutor()`` installs: the platform's main
/// executor (the main thread's queue, which never starts libdispatch's pool), and the pool.
struct GlobalExecutors: ExecutorFactory {
    static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }
    static var defaultExecutor: any TaskExecutor { GlobalPool.shared }
}

/// ``ThreadPoolExecutor/shared`` as the default executor: its jobs run as the global hooks' do,
/// and it schedules sleeps (`Task.sleep`, `ContinuousClock().sleep`). The runtime asks only for
/// the continuous and suspending clocks, whose durations are `Duration`s; their deadlines become
/// `CLOCK_MONOTONIC` readings, as the delay hooks' do.
final class GlobalPool: TaskExecutor, SchedulingExecutor {
    static let shared = GlobalPool()

    func enqueue(_ job: consuming ExecutorJob) {
        ThreadPoolExecutor.shared.enqueueGlobal(UnownedJob(job))
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        // No clock the runtime sleeps on has other durations than `Duration`; another counts as none.
        let nanoseconds = (delay as? Duration)?.nanosecondsClamped ?? 0
        ThreadPoolExecutor.shared.enqueue(UnownedJob(job), atMonotonic: ThreadPoolExecutor.monotonicDeadline(after: nanoseconds))
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        enqueue(job, after: clock.now.duration(to: instant), tolerance: tolerance, clock: clock)
    }
}
#endif
