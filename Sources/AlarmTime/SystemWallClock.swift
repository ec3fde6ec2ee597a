import FoundationEssentials
import Glibc
import LinuxSupport

/// The system's real-time clock, slept on with a Linux timerfd.
///
/// Every sleep of the process waits on one `CLOCK_REALTIME` timerfd (`RealtimeTimer`), armed
/// for the earliest deadline with `TFD_TIMER_CANCEL_ON_SET`, so a sleep ends at the wall-clock
/// instant even across suspend, and at once when anyone sets the clock: clock jumps are noticed
/// when they happen, not by polling. One thread of its own waits on it, never the cooperative pool.
public struct SystemWallClock: WallClock {
    /// The timer its sleeps wait on.
    public let timer: RealtimeTimer

    /// `timer` is the process's shared one unless a test brings its own.
    public init(timer: RealtimeTimer = .shared) {
        self.timer = timer
    }

    public var now: Date { Date() }

    /// `CLOCK_BOOTTIME`: monotonic, and counting while suspended.
    public var monotonicNow: Duration { SystemClocks.bootTime }

    /// The latest deadline a timer is armed for; later ones wake early and the caller sleeps again.
    /// Kernel timers saturate near 2262; 2200 keeps clear of that.
    public static let latestArmableDeadline = Date(timeIntervalSince1970: 7_258_118_400)

    public func sleep(until deadline: Date) async throws -> WallClockWake {
        try Task.checkCancellation()
        return try await Self.wait(for: arm(until: deadline))
    }

    /// Ends on the timer's thread in every case (``RealtimeTimer/arm(after:)``).
    public func sleep(for delay: Duration) async throws -> WallClockWake {
        try Task.checkCancellation()
        let sleep: RealtimeTimer.Sleep
        do {
            sleep = try timer.arm(after: delay.timeInterval)
        } catch {
            throw WallClockError(operation: error.operation, errno: error.errno)
        }
        return try await Self.wait(for: sleep)
    }

    /// Calls `action` from the timer's thread. A timerfd that fails calls nothing, as a sleep
    /// that throws wakes nobody.
    public func wake(at deadline: Date, _ action: @escaping @Sendable (WallClockWake) -> Void) -> @Sendable () -> Void {
        guard let sleep = try? arm(until: deadline) else { return {} }
        sleep.onEnd { result in
            if case .success(let wake) = result { action(WallClockWake(wake)) }
        }
        return { sleep.cancel() }
    }

    /// Registers a sleep for `deadline` now; it ends at the deadline or at any clock set from
    /// this moment on.
    func arm(until deadline: Date) throws -> RealtimeTimer.Sleep {
        do {
            return try timer.arm(until: min(deadline, Self.latestArmableDeadline).timeIntervalSince1970)
        } catch {
            throw WallClockError(operation: error.operation, errno: error.errno)
        }
    }

    static func wait(for sleep: RealtimeTimer.Sleep) async throws -> WallClockWake {
        do {
            return WallClockWake(try await sleep.wait())
        } catch let error as RealtimeTimer.Failure {
            throw WallClockError(operation: error.operation, errno: error.errno)
        }
    }

    /// Whether the kernel reports the clock as synchronised by an NTP client.
    public static var isSynchronized: Bool { SystemClocks.isSynchronized }
}

extension WallClockWake {
    init(_ wake: RealtimeTimer.Wake) {
        switch wake {
        case .deadline: self = .deadlineReached
        case .clockSet: self = .clockChanged
        }
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
