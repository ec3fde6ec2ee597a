import Glibc

/// An instant of `CLOCK_REALTIME`, in nanoseconds since the Unix epoch: every instant on the
/// probe's command line and in its output is one, written as decimal seconds with 6 decimals.
///
/// ```swift
/// let pressed = RealtimeInstant(parsing: "1764000000.25")!
/// pressed.text                                   // "1764000000.250000"
/// (pressed + .milliseconds(5)).text              // "1764000000.255000"
/// ```
public struct RealtimeInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// Decimal seconds (`1764000000.123456`, any number of decimals); `nil` for anything else.
    public init?(parsing text: some StringProtocol) {
        guard let value = DecimalText.nanoseconds(fromSeconds: text) else { return nil }
        nanoseconds = value
    }

    /// The clock now. The corresponding C function is `clock_gettime(CLOCK_REALTIME)`.
    public static func now() -> RealtimeInstant {
        RealtimeInstant(nanoseconds: SystemClock.read(CLOCK_REALTIME))
    }

    /// Decimal seconds with 6 decimals, rounded to the nearest microsecond.
    public var text: String { DecimalText.seconds(nanoseconds: nanoseconds) }

    public var description: String { text }

    public static func < (lhs: RealtimeInstant, rhs: RealtimeInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    public static func + (lhs: RealtimeInstant, rhs: Duration) -> RealtimeInstant {
        RealtimeInstant(nanoseconds: lhs.nanoseconds + rhs.totalNanoseconds)
    }

    public static func - (lhs: RealtimeInstant, rhs: Duration) -> RealtimeInstant {
        RealtimeInstant(nanoseconds: lhs.nanoseconds - rhs.totalNanoseconds)
    }

    /// The time from `rhs` to `lhs`, in milliseconds (negative when `lhs` is earlier).
    public static func millisecondsBetween(_ start: RealtimeInstant, _ end: RealtimeInstant) -> Double {
        Double(end.nanoseconds - start.nanoseconds) / 1_000_000
    }
}

extension Duration {
    /// Whole nanoseconds, truncated toward zero; saturates far beyond any test's range.
    public var totalNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// The kernel's clocks, read directly.
public enum SystemClock {
    /// Nanoseconds of clock `id` (`CLOCK_REALTIME`, `CLOCK_MONOTONIC`, `CLOCK_BOOTTIME`...).
    /// The corresponding C function is `clock_gettime`.
    public static func read(_ id: clockid_t) -> Int64 {
        var time = timespec()
        // SAFETY: `time` is a valid timespec for the call; the clocks used here always exist on Linux.
        _ = clock_gettime(id, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// `CLOCK_REALTIME − id` now, from one reading of `id` between two of the realtime clock
    /// (their midpoint), so the error is at most half the few hundred nanoseconds between them.
    public static func realtimeOffset(from id: clockid_t) -> Int64 {
        let before = read(CLOCK_REALTIME)
        let other = read(id)
        let after = read(CLOCK_REALTIME)
        return before + (after - before) / 2 - other
    }

    /// Sleeps for `nanoseconds` on `CLOCK_MONOTONIC`, resuming after signals, unless
    /// `interrupted()` returns true after one. The corresponding C function is `clock_nanosleep`.
    public static func sleep(nanoseconds: Int64, interrupted: () -> Bool = { false }) {
        guard nanoseconds > 0 else { return }
        sleep(untilMonotonic: read(CLOCK_MONOTONIC) + nanoseconds, interrupted: interrupted)
    }

    /// Sleeps until `CLOCK_MONOTONIC` reads `deadline` (nanoseconds), as ``sleep(nanoseconds:interrupted:)``.
    public static func sleep(untilMonotonic deadline: Int64, interrupted: () -> Bool = { false }) {
        var target = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while true {
            let result = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil)
            if result != EINTR || interrupted() { return }
        }
    }
}
