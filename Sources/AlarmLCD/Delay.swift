import Glibc

/// Waits that block the calling thread, between two bus transfers. Drivers take one in `init`
/// so that tests never sleep (embedded-hal's `DelayNs`); the tests' bus records each wait.
public protocol Delay: Sendable {
    /// Blocks the calling thread for at least `duration`.
    func delay(for duration: Duration)
}

/// Sleeps the calling thread with `nanosleep`, resuming after signals until the time is up.
///
/// Linux adds its timer slack (50 µs by default) to every sleep, so a wait lasts at least
/// `duration` and usually a little more; never call it on Swift's cooperative pool.
public struct ThreadSleepDelay: Delay {
    public init() {}

    /// The corresponding C function is `nanosleep`.
    public func delay(for duration: Duration) {
        guard duration > .zero else { return }
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR {
            request = remaining
        }
    }
}
