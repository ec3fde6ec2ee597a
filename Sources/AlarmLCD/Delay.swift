import LinuxSupport

/// Waits that block the calling thread, between two bus transfers. Drivers take one in `init`
/// so that tests never sleep (embedded-hal's `DelayNs`); the tests' bus records each wait.
public protocol Delay: Sendable {
    /// Blocks the calling thread for at least `duration`.
    func delay(for duration: Duration)
}

/// Sleeps the calling thread with ``sleepThread(for:)``: at least `duration`, usually a little more.
public struct ThreadSleepDelay: Delay {
    public init() {}

    public func delay(for duration: Duration) {
        sleepThread(for: duration)
    }
}
