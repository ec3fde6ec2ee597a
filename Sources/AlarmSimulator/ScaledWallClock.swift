import AlarmTime
import FoundationEssentials

/// A wall clock for demos that runs `speed` times faster (or slower) than real time, from `start`.
///
/// ```swift
/// let clock = try ScaledWallClock(start: sixFiftyNine, speed: 60)   // a minute per second
/// _ = try await clock.sleep(until: seven)                           // about one real second
/// ```
///
/// Time is measured on the monotonic `ContinuousClock` (`CLOCK_BOOTTIME` on Linux), so a change
/// of the host's clock does not move the virtual one, and a sleep never ends with
/// ``WallClockWake/clockChanged``: nothing sets this clock.
///
/// ``monotonicNow`` is scaled too, from zero when the clock is made. Everything the appliance
/// measures must run at one rate: a button held for two virtual seconds takes 3.3 ms at speed 600,
/// and must still read as a long press from its event timestamps; and the engine tells a clock jump
/// from the difference between `now` and `monotonicNow`, so if they ran at different rates it
/// would see a jump on every reading.
public struct ScaledWallClock: WallClock {
    /// The speed given was not a finite number greater than zero.
    public struct InvalidSpeed: Error, Hashable, Sendable, CustomStringConvertible {
        public let speed: Double

        public var description: String {
            "the simulation speed must be a finite number greater than 0, not \(speed)"
        }
    }

    /// The virtual time when the clock was made.
    public let start: Date
    /// Virtual seconds per real second.
    public let speed: Double
    /// Real time elapsed since the clock was made.
    private let realElapsed: @Sendable () -> Duration

    /// A clock that reads `start` now and runs `speed` times as fast as real time.
    /// - Throws: ``InvalidSpeed`` unless `speed` is finite and greater than zero (it usually comes
    ///   from a command-line argument: show the error's description to the person).
    public init(start: Date, speed: Double) throws(InvalidSpeed) {
        let origin = ContinuousClock.now
        try self.init(start: start, speed: speed, realElapsed: { ContinuousClock.now - origin })
    }

    /// A clock on an injected real-time source, for tests of the arithmetic.
    init(start: Date, speed: Double, realElapsed: @escaping @Sendable () -> Duration) throws(InvalidSpeed) {
        guard speed.isFinite, speed > 0 else { throw InvalidSpeed(speed: speed) }
        self.start = start
        self.speed = speed
        self.realElapsed = realElapsed
    }

    /// `start` plus the real time elapsed since the clock was made, times `speed`.
    public var now: Date { start.addingTimeInterval(virtualSecondsElapsed) }

    /// The virtual time elapsed since the clock was made (real monotonic time times `speed`).
    public var monotonicNow: Duration { .seconds(virtualSecondsElapsed) }

    /// Sleeps the real time it takes the virtual clock to reach `deadline`; returns at once if it
    /// has passed. Always returns ``WallClockWake/deadlineReached``.
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(until deadline: Date) async throws -> WallClockWake {
        while true {
            try Task.checkCancellation()
            let remaining = deadline.timeIntervalSince(now)
            guard remaining > 0 else { return .deadlineReached }
            // At most a day per real sleep: a deadline in the far future at a tiny speed would
            // overflow `Duration`. The loop goes round again, as it does after an early wake.
            let real = min(remaining / speed, 86_400)
            try await Task.sleep(for: .seconds(real), clock: .continuous)
        }
    }

    private var virtualSecondsElapsed: Double {
        realElapsed().timeInterval * speed
    }
}
