import AlarmTime
import FoundationEssentials

/// A wall clock for demos that runs `speed` times faster (or slower) than real time, from `start`.
///
/// Time is measured on the monotonic `ContinuousClock` (`CLOCK_BOOTTIME` on Linux), so a change
/// of the host's clock does not move the virtual one, and a sleep never ends with
/// ``WallClockWake/clockChanged``: nothing sets this clock.
///
/// ``monotonicNow`` is scaled too, from zero: a button held two virtual seconds must still read
/// as a long press, and the engine would see a clock jump on every reading if `now` and
/// `monotonicNow` ran at different rates.
public struct ScaledWallClock: WallClock {
    /// The speed given was not a finite number greater than zero.
    public struct InvalidSpeed: Error, Hashable, Sendable, CustomStringConvertible {
        public let speed: Double

        public var description: String {
            "the simulation speed must be a finite number greater than 0, not \(speed)"
        }
    }

    public let start: Date
    /// Virtual seconds per real second.
    public let speed: Double
    private let realElapsed: @Sendable () -> Duration

    /// `speed` usually comes from a command-line argument: show ``InvalidSpeed``'s description
    /// to the person.
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

    public var now: Date { start.addingTimeInterval(virtualSecondsElapsed) }

    public var monotonicNow: Duration { .seconds(virtualSecondsElapsed) }

    /// Sleeps the real time it takes the virtual clock to reach `deadline`. Always returns
    /// ``WallClockWake/deadlineReached``.
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
