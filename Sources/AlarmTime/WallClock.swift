import FoundationEssentials

/// The wall clock alarms are set against, and a way to sleep on it.
///
/// Alarms are wall-clock events, so this clock is `Date`-based, unlike Swift's monotonic
/// `Clock`s. The wall clock can jump (NTP on a board without a real-time clock, a person setting
/// the time), so a sleep also ends when the clock is set.
///
/// Backends: ``SystemWallClock`` (timerfd), and `ManualWallClock` in `AlarmSimulator` for tests.
///
/// ```swift
/// switch try await clock.sleep(until: deadline) {
/// case .deadlineReached: scheduler.evaluate(now: clock.now)
/// case .clockChanged: scheduler.clockChanged(jump: ..., now: clock.now)
/// }
/// ```
public protocol WallClock: Sendable {
    var now: Date { get }
    /// A monotonic time that keeps counting through suspend; the difference between two readings
    /// of `now` and of this tells how far the wall clock jumped in between.
    var monotonicNow: Duration { get }
    /// Suspends until the wall clock reaches `deadline` or is set, whichever comes first.
    ///
    /// Returns at once with ``WallClockWake/deadlineReached`` if `deadline` has passed.
    /// - Throws: `CancellationError` when the task is cancelled.
    func sleep(until deadline: Date) async throws -> WallClockWake

    /// Suspends for `delay` on the wall clock, or until it is set, whichever comes first.
    ///
    /// The deadline is taken when the sleep is armed, so the sleep always waits for the clock's
    /// timer, even if the caller was descheduled for longer than `delay`: a health check can
    /// prove with it that the timer alarms wake through still fires.
    /// - Throws: `CancellationError` when the task is cancelled.
    func sleep(for delay: Duration) async throws -> WallClockWake

    /// Calls `action` once, when the wall clock reaches `deadline` or is set, unless the returned
    /// closure is called first to cancel it.
    ///
    /// Unlike a task around ``sleep(until:)``, a clock may call `action` from a thread of its own,
    /// so a wake that only feeds a stream costs an idle process no hop through another thread.
    /// `action` must be quick and must not block.
    func wake(at deadline: Date, _ action: @escaping @Sendable (WallClockWake) -> Void) -> @Sendable () -> Void
}

extension WallClock {
    /// Sleeps until ``now`` plus `delay`.
    public func sleep(for delay: Duration) async throws -> WallClockWake {
        try await sleep(until: now.addingTimeInterval(delay.timeInterval))
    }

    public func wake(at deadline: Date, _ action: @escaping @Sendable (WallClockWake) -> Void) -> @Sendable () -> Void {
        let sleeper = Task {
            if let wake = try? await sleep(until: deadline) { action(wake) }
        }
        return { sleeper.cancel() }
    }
}

/// Why a ``WallClock/sleep(until:)`` returned.
public enum WallClockWake: Hashable, Sendable {
    /// The wall clock reached the deadline (it may be later than the deadline).
    case deadlineReached
    /// The wall clock was set before the deadline; re-evaluate everything.
    case clockChanged
}
