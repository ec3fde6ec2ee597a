import CLinuxSupport
import FoundationEssentials
import Glibc

/// The system's real-time clock, slept on with a Linux timerfd.
///
/// A sleep arms a `CLOCK_REALTIME` timerfd at the absolute deadline with
/// `TFD_TIMER_CANCEL_ON_SET`, so it ends at the wall-clock instant even across suspend, and at once
/// when anyone sets the clock: clock jumps are noticed when they happen, not by polling. The wait
/// blocks a thread of its own, never the cooperative pool.
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

    /// Arms a timer for `deadline` now; its ``ArmedTimer/wait()`` reports the deadline, or any
    /// clock set from this moment on.
    func arm(until deadline: Date) throws -> ArmedTimer {
        let target = min(deadline, Self.latestArmableDeadline).timeIntervalSince1970
        let seconds = target.rounded(.down)
        let nanoseconds = min(max((target - seconds) * 1e9, 0), 999_999_999)
        return try ArmedTimer(seconds: Int64(seconds), nanoseconds: Int64(nanoseconds))
    }

    /// A timerfd armed with `TFD_TIMER_CANCEL_ON_SET` and an eventfd to cancel the wait; both are
    /// closed when the value is released.
    final class ArmedTimer: Sendable {
        private let timer: Int32
        private let cancelDescriptor: Int32

        init(seconds: Int64, nanoseconds: Int64) throws {
            let cancelDescriptor = alarmd_eventfd_create()
            guard cancelDescriptor >= 0 else { throw WallClockError(operation: "eventfd", errno: -cancelDescriptor) }
            let timer = alarmd_realtime_timer_create(seconds, nanoseconds)
            guard timer >= 0 else {
                close(cancelDescriptor)
                throw WallClockError(operation: "timerfd", errno: -timer)
            }
            self.timer = timer
            self.cancelDescriptor = cancelDescriptor
        }

        deinit {
            close(timer)
            close(cancelDescriptor)
        }

        /// Blocks a thread of its own until the deadline, a clock set, or task cancellation.
        func wait() async throws -> WallClockWake {
            let result = await withTaskCancellationHandler {
                await BlockingCall.run { [self] in alarmd_realtime_timer_wait(timer, cancelDescriptor) }
            } onCancel: {
                _ = alarmd_eventfd_signal(cancelDescriptor)
            }
            switch result {
            case Int32(ALARMD_WAIT_DEADLINE.rawValue): return .deadlineReached
            case Int32(ALARMD_WAIT_CLOCK_SET.rawValue): return .clockChanged
            case Int32(ALARMD_WAIT_CANCELLED.rawValue): throw CancellationError()
            default: throw WallClockError(operation: "timerfd", errno: -result)
            }
        }
    }

    /// Whether the kernel reports the clock as synchronised by an NTP client.
    public static var isSynchronized: Bool { alarmd_clock_is_synchronized() != 0 }
}

/// A system call the clock needs failed.
public struct WallClockError: Error, Hashable, Sendable, CustomStringConvertible {
    public let operation: String
    public let errno: Int32

    public var description: String {
        "\(operation) failed: \(String(cString: strerror(errno)))"
    }
}
