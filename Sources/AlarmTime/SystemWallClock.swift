import CLinuxSupport
import FoundationEssentials
import Glibc
import Synchronization

/// The system's real-time clock, slept on with a Linux timerfd.
///
/// Every sleep of the process waits on one `CLOCK_REALTIME` timerfd (``RealtimeTimer``), armed
/// for the earliest deadline with `TFD_TIMER_CANCEL_ON_SET`, so a sleep ends at the wall-clock
/// instant even across suspend, and at once when anyone sets the clock: clock jumps are noticed
/// when they happen, not by polling. One thread of its own waits on it, never the cooperative pool.
public struct SystemWallClock: WallClock {
    public init() {}

    public var now: Date { Date() }

    /// `CLOCK_BOOTTIME`: monotonic, and counting while suspended.
    public var monotonicNow: Duration { .nanoseconds(alarmd_boottime_nanoseconds()) }

    /// The latest deadline a timer is armed for; later ones wake early and the caller sleeps again.
    /// Kernel timers saturate near 2262; 2200 keeps clear of that.
    public static let latestArmableDeadline = Date(timeIntervalSince1970: 7_258_118_400)

    public func sleep(until deadline: Date) async throws -> WallClockWake {
        try Task.checkCancellation()
        return try await arm(until: deadline).wait()
    }

    /// Registers a sleep for `deadline` now; its ``RealtimeTimer/Sleep/wait()`` reports the
    /// deadline, or any clock set from this moment on.
    func arm(until deadline: Date) throws -> RealtimeTimer.Sleep {
        try RealtimeTimer.shared.arm(until: min(deadline, Self.latestArmableDeadline))
    }

    /// Whether the kernel reports the clock as synchronised by an NTP client.
    public static var isSynchronized: Bool { alarmd_clock_is_synchronized() != 0 }
}

/// The process's sleeps on the wall clock: one timerfd armed for the earliest deadline, and one
/// thread that waits on it and ends the sleeps that are due (or all of them when the clock is
/// set). Arming an earlier deadline re-arms the timerfd from the sleeper's own thread, so an idle
/// process wakes once per deadline and never to register a sleep.
final class RealtimeTimer: Sendable {
    static let shared = RealtimeTimer()

    /// One sleep: registered when armed, so that a clock set from then on ends it.
    final class Sleep: Sendable {
        let deadline: Date
        private let timer: RealtimeTimer
        private let outcome = Mutex(Outcome.pending)

        private enum Outcome {
            case pending
            case waiting(CheckedContinuation<WallClockWake, any Error>)
            case ended(Result<WallClockWake, any Error>)
        }

        fileprivate init(deadline: Date, timer: RealtimeTimer) {
            self.deadline = deadline
            self.timer = timer
        }

        /// Suspends until the deadline, a clock set, or task cancellation. Call once.
        func wait() async throws -> WallClockWake {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let ended = outcome.withLock { outcome -> Result<WallClockWake, any Error>? in
                        if case .ended(let result) = outcome { return result }
                        outcome = .waiting(continuation)
                        return nil
                    }
                    if let ended { continuation.resume(with: ended) }
                }
            } onCancel: {
                timer.remove(self)
                end(.failure(CancellationError()))
            }
        }

        /// Ends the sleep; only the first end counts.
        fileprivate func end(_ result: Result<WallClockWake, any Error>) {
            let continuation = outcome.withLock { outcome -> CheckedContinuation<WallClockWake, any Error>? in
                switch outcome {
                case .pending:
                    outcome = .ended(result)
                    return nil
                case .waiting(let continuation):
                    outcome = .ended(result)
                    return continuation
                case .ended:
                    return nil
                }
            }
            continuation?.resume(with: result)
        }
    }

    private struct State {
        var sleeps: [ObjectIdentifier: Sleep] = [:]
        /// The deadline the timerfd is armed for, while a sleep waits for it.
        var armedFor: Date?
        var threadStarted = false
    }

    private let state = Mutex(State())
    /// The timerfd, or why there is none.
    private let timer: Result<Int32, WallClockError>

    private init() {
        let latest = SystemWallClock.latestArmableDeadline.timeIntervalSince1970
        let descriptor = alarmd_realtime_timer_create(Int64(latest), 0)
        timer = descriptor >= 0 ? .success(descriptor) : .failure(WallClockError(operation: "timerfd", errno: -descriptor))
    }

    func arm(until deadline: Date) throws -> Sleep {
        let descriptor = try timer.get()
        let sleep = Sleep(deadline: deadline, timer: self)
        if deadline <= Date() {
            sleep.end(.success(.deadlineReached))
            return sleep
        }
        try state.withLock { state throws(WallClockError) in
            if !state.threadStarted {
                let created = DetachedThread.start { [self] in run(descriptor) }
                guard created == 0 else { throw WallClockError(operation: "pthread_create", errno: created) }
                state.threadStarted = true
            }
            state.sleeps[ObjectIdentifier(sleep)] = sleep
            if state.armedFor.map({ deadline < $0 }) ?? true {
                try Self.set(descriptor, to: deadline)
                state.armedFor = deadline
            }
        }
        return sleep
    }

    fileprivate func remove(_ sleep: Sleep) {
        // The timerfd stays armed: at worst it wakes its thread once for nothing.
        state.withLock { _ = $0.sleeps.removeValue(forKey: ObjectIdentifier(sleep)) }
    }

    /// The timer thread: waits, ends what is due, re-arms for the earliest sleep left.
    private func run(_ descriptor: Int32) {
        while true {
            let result = alarmd_realtime_timer_wait(descriptor, -1)
            let now = Date()
            let outcome: Result<WallClockWake, any Error>
            switch result {
            case Int32(ALARMD_WAIT_DEADLINE.rawValue): outcome = .success(.deadlineReached)
            case Int32(ALARMD_WAIT_CLOCK_SET.rawValue): outcome = .success(.clockChanged)
            default: outcome = .failure(WallClockError(operation: "timerfd", errno: -result))
            }
            let ended = state.withLock { state -> [Sleep] in
                let ending = state.sleeps.values.filter { result != Int32(ALARMD_WAIT_DEADLINE.rawValue) || $0.deadline <= now }
                for sleep in ending { state.sleeps[ObjectIdentifier(sleep)] = nil }
                state.armedFor = state.sleeps.values.map(\.deadline).min()
                if let next = state.armedFor, (try? Self.set(descriptor, to: next)) == nil {
                    // Not armed: those sleeps end now with the error rather than never.
                    for sleep in state.sleeps.values { sleep.end(.failure(WallClockError(operation: "timerfd_settime", errno: errno))) }
                    state.sleeps = [:]
                    state.armedFor = nil
                }
                return ending
            }
            for sleep in ended { sleep.end(outcome) }
        }
    }

    private static func set(_ descriptor: Int32, to deadline: Date) throws(WallClockError) {
        let target = deadline.timeIntervalSince1970
        let seconds = target.rounded(.down)
        let nanoseconds = min(max((target - seconds) * 1e9, 0), 999_999_999)
        let result = alarmd_realtime_timer_set(descriptor, Int64(seconds), Int64(nanoseconds))
        if result < 0 { throw WallClockError(operation: "timerfd_settime", errno: -result) }
    }
}

/// A system call the clock needs failed.
public struct WallClockError: Error, Hashable, Sendable, CustomStringConvertible {
    public let operation: String
    public let errno: Int32

    public var description: String {
        "\(operation) failed: \(String(cString: strerror(errno)))"
    }
}
