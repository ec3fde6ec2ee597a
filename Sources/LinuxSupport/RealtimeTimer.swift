import CLinuxSupport
import Glibc
import Synchronization

/// The process's sleeps on the wall clock: one timerfd armed for the earliest deadline, and one
/// thread that waits on it and ends the sleeps that are due (or all of them when the clock is
/// set). Arming an earlier deadline re-arms the timerfd from the sleeper's own thread, so an idle
/// process wakes once per deadline and never to register a sleep.
///
/// The thread is named ``threadName`` (`top -H`, `/proc/PID/task/*/comm`): every alarm wakes
/// through it, and the daemon's watchdog check proves it still delivers (``arm(after:)``).
public final class RealtimeTimer: Sendable {
    /// The timer every sleep of the process shares.
    public static let shared = RealtimeTimer()

    /// The name of the timer's thread, as the kernel shows it.
    public static let threadName = "alarmd-timer"

    /// Why a sleep ended.
    public enum Wake: Hashable, Sendable {
        case deadline
        /// `CLOCK_REALTIME` was set before the deadline.
        case clockSet
    }

    /// A system call the timer needs failed.
    public struct Failure: Error, Hashable, Sendable {
        public let operation: String
        public let errno: Int32
    }

    /// One sleep: registered when armed, so that a clock set from then on ends it.
    public final class Sleep: Sendable {
        /// Seconds since 1970, as `CLOCK_REALTIME` counts them.
        let deadline: Double
        private let timer: RealtimeTimer
        private let outcome = Mutex(Outcome.pending)

        private enum Outcome {
            case pending
            case waiting(@Sendable (Result<Wake, any Error>) -> Void)
            case ended(Result<Wake, any Error>)
        }

        fileprivate init(deadline: Double, timer: RealtimeTimer) {
            self.deadline = deadline
            self.timer = timer
        }

        /// Suspends until the deadline, a clock set, or task cancellation. Call once, and not
        /// together with ``onEnd(_:)``.
        public func wait() async throws -> Wake {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    onEnd { continuation.resume(with: $0) }
                }
            } onCancel: {
                cancel()
            }
        }

        /// Calls `action` when the sleep ends, from the timer's thread (or at once if it has
        /// ended). Call once, and not together with ``wait()``.
        public func onEnd(_ action: @escaping @Sendable (Result<Wake, any Error>) -> Void) {
            let ended = outcome.withLock { outcome -> Result<Wake, any Error>? in
                if case .ended(let result) = outcome { return result }
                outcome = .waiting(action)
                return nil
            }
            if let ended { action(ended) }
        }

        /// Ends the sleep with `CancellationError`, unless it has ended already.
        public func cancel() {
            timer.remove(self)
            end(.failure(CancellationError()))
        }

        /// Ends the sleep; only the first end counts.
        fileprivate func end(_ result: Result<Wake, any Error>) {
            let action = outcome.withLock { outcome -> (@Sendable (Result<Wake, any Error>) -> Void)? in
                switch outcome {
                case .pending:
                    outcome = .ended(result)
                    return nil
                case .waiting(let action):
                    outcome = .ended(result)
                    return action
                case .ended:
                    return nil
                }
            }
            action?(result)
        }
    }

    private struct State {
        var sleeps: [ObjectIdentifier: Sleep] = [:]
        /// The deadline the timerfd is armed for, while a sleep waits for it.
        var armedFor: Double?
        var threadStarted = false
        /// A clock set that arming the timerfd reported (and so took from the read that would
        /// have reported it): the thread ends every sleep with ``Wake/clockSet`` at its next wake.
        var clockSetUnread = false
    }

    private let state = Mutex(State())
    /// The timerfd, or why there is none.
    private let timer: Result<Int32, Failure>
    /// 2200, in seconds since 1970: clear of where kernel timers saturate.
    private static let latestDeadline: Double = 7_258_118_400

    /// A timer with a timerfd and a thread of its own (started by the first sleep, never ended).
    /// The process shares ``shared``; a test makes its own to block its thread.
    package init() {
        // Armed far ahead until the first sleep.
        let descriptor = alarmd_realtime_timer_create(Int64(Self.latestDeadline), 0)
        timer = descriptor >= 0 ? .success(descriptor) : .failure(Failure(operation: "timerfd", errno: -descriptor))
    }

    /// Registers a sleep until `deadline` (seconds since 1970): from now on a clock set ends it.
    /// A deadline already past ends the sleep at once, on the calling thread.
    public func arm(until deadline: Double) throws(Failure) -> Sleep {
        let descriptor = try timerDescriptor()
        let sleep = Sleep(deadline: deadline, timer: self)
        if deadline <= Self.now {
            sleep.end(.success(.deadline))
            return sleep
        }
        try register(sleep, descriptor: descriptor)
        return sleep
    }

    /// Registers a sleep of `seconds` from now (none for zero, a negative or a NaN; at most until
    /// 2200). Unlike ``arm(until:)``, it always ends on the timer's thread, even when the caller
    /// was descheduled past the deadline before arming it: its end proves that the thread runs
    /// and delivers.
    public func arm(after seconds: Double) throws(Failure) -> Sleep {
        let descriptor = try timerDescriptor()
        let now = Self.now
        let delay = seconds > 0 ? min(seconds, Self.latestDeadline - now) : 0
        let sleep = Sleep(deadline: now + delay, timer: self)
        try register(sleep, descriptor: descriptor)
        return sleep
    }

    private func timerDescriptor() throws(Failure) -> Int32 {
        switch timer {
        case .success(let descriptor): descriptor
        case .failure(let failure): throw failure
        }
    }

    /// Adds `sleep` and arms the timerfd for it if it is the earliest; a deadline that has passed
    /// meanwhile makes the timerfd fire at once.
    private func register(_ sleep: Sleep, descriptor: Int32) throws(Failure) {
        let deadline = sleep.deadline
        try state.withLock { state throws(Failure) in
            if !state.threadStarted {
                let created = DetachedThread.start { [self] in run(descriptor) }
                guard created == 0 else { throw Failure(operation: "pthread_create", errno: created) }
                state.threadStarted = true
            }
            state.sleeps[ObjectIdentifier(sleep)] = sleep
            if state.armedFor.map({ deadline < $0 }) ?? true {
                do throws(Failure) {
                    try Self.arm(descriptor, for: deadline, &state)
                } catch {
                    state.sleeps[ObjectIdentifier(sleep)] = nil
                    throw error
                }
            }
        }
    }

    /// Arms the timerfd for `deadline`. A clock set since the timerfd was last read makes
    /// `timerfd_settime` arm it and fail with ECANCELED, and the read that would have reported
    /// the set then finds nothing: the set is kept in `state`, and the timerfd armed to fire at
    /// once, so the thread ends every sleep with ``Wake/clockSet`` as a read would have had it.
    private static func arm(_ descriptor: Int32, for deadline: Double, _ state: inout State) throws(Failure) {
        var target = deadline
        while true {
            do throws(Failure) {
                try set(descriptor, to: target)
                state.armedFor = target
                return
            } catch where error.errno == ECANCELED {
                state.clockSetUnread = true
                target = 0  // the epoch: past, so the timerfd fires at once
            }
        }
    }

    fileprivate func remove(_ sleep: Sleep) {
        // The timerfd stays armed: at worst it wakes its thread once for nothing.
        state.withLock { _ = $0.sleeps.removeValue(forKey: ObjectIdentifier(sleep)) }
    }

    /// The timer thread: waits, ends what is due, re-arms for the earliest sleep left. A timerfd
    /// that fails ends every sleep with the failure and this thread; the next sleep starts another.
    private func run(_ descriptor: Int32) {
        DetachedThread.nameCurrentThread(Self.threadName)
        while true {
            let result = alarmd_realtime_timer_wait(descriptor, -1)
            let now = Self.now
            let outcome: Result<Wake, any Error>
            switch result {
            case Int32(ALARMD_WAIT_DEADLINE.rawValue): outcome = .success(.deadline)
            case Int32(ALARMD_WAIT_CLOCK_SET.rawValue): outcome = .success(.clockSet)
            default: outcome = .failure(Failure(operation: "timerfd", errno: -result))
            }
            let (ended, rearmFailure) = state.withLock { state -> ([(Sleep, Result<Wake, any Error>)], Failure?) in
                var outcome = outcome
                if state.clockSetUnread, case .success = outcome { outcome = .success(.clockSet) }
                state.clockSetUnread = false
                let isDeadline = (try? outcome.get()) == .deadline
                let ending = state.sleeps.values.filter { !isDeadline || $0.deadline <= now }
                for sleep in ending { state.sleeps[ObjectIdentifier(sleep)] = nil }
                var ended = ending.map { ($0, outcome) }
                state.armedFor = nil
                var failure: Failure?
                if case .failure(let error) = outcome { failure = error as? Failure }
                if failure == nil, let next = state.sleeps.values.map(\.deadline).min() {
                    do throws(Failure) {
                        try Self.arm(descriptor, for: next, &state)
                    } catch {
                        failure = error
                    }
                }
                if let failure {
                    // Not armed: the sleeps left end now with the error rather than never.
                    ended += state.sleeps.values.map { ($0, .failure(failure)) }
                    state.sleeps = [:]
                    state.armedFor = nil
                    state.threadStarted = false
                }
                return (ended, failure)
            }
            for (sleep, result) in ended { sleep.end(result) }
            if rearmFailure != nil { return }
        }
    }

    private static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func set(_ descriptor: Int32, to target: Double) throws(Failure) {
        let seconds = target.rounded(.down)
        let nanoseconds = min(max((target - seconds) * 1e9, 0), 999_999_999)
        let result = alarmd_realtime_timer_set(descriptor, Int64(seconds), Int64(nanoseconds))
        if result < 0 { throw Failure(operation: "timerfd_settime", errno: -result) }
    }
}
