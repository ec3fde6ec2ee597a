import AlarmHardware

/// Where a GPIO backend stands. Sent on ``GPIODButtonInput/statusUpdates()`` and
/// ``GPIODIndicator/statusUpdates()`` each time it changes.
public enum GPIOStatus: Hashable, Sendable {
    /// Not yet tried to request the lines.
    case starting
    case ready
    /// A chip or line is missing or busy, or failed while in use. The backend has let go of its
    /// lines and tries again when a chip node appears, or after a wait that grows with each
    /// failure (``RetryBackoff``).
    case failed(HardwareError)
    /// ``GPIODButtonInput/close()`` or ``GPIODIndicator/close()`` released the lines for good.
    case closed
}

/// How long a backend waits before trying a missing or failing chip or line again: 5 s after the
/// first failure, doubling up to five minutes.
let gpioRetryBackoff = RetryBackoff(first: .seconds(5))

/// The consumer name `gpioinfo` shows for the lines.
let gpioConsumer = "alarmd"
