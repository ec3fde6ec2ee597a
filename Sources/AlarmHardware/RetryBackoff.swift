/// How long to wait before trying a missing or failing part again: ``first`` after the first
/// failure, doubling after each further one, up to ``limit``. A part that stays missing costs a
/// few wake-ups an hour, not one every few seconds; a part that comes back is found within
/// ``limit`` at worst (sooner where a backend also watches for it, as the GPIO backends watch
/// `/dev`).
///
/// ```swift
/// let backoff = RetryBackoff(first: .seconds(10), limit: .seconds(300))
/// backoff.delay(afterFailures: 1)   // 10 s
/// backoff.delay(afterFailures: 3)   // 40 s
/// backoff.delay(afterFailures: 9)   // 300 s
/// ```
public struct RetryBackoff: Hashable, Sendable {
    /// The wait after the first failure.
    public var first: Duration
    /// The longest wait; at least ``first``.
    public var limit: Duration

    /// The default ``limit``: five minutes.
    public static let defaultLimit = Duration.seconds(300)

    public init(first: Duration, limit: Duration = RetryBackoff.defaultLimit) {
        self.first = first
        self.limit = max(limit, first)
    }

    /// The wait after `failures` failures in a row (1 for the first).
    public func delay(afterFailures failures: Int) -> Duration {
        var delay = first
        for _ in 1..<max(failures, 1) {
            guard delay < limit else { break }
            delay = delay * 2
        }
        return min(delay, limit)
    }
}
