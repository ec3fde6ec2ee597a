import CLinuxSupport

/// What the kernel says of its clocks beyond `Date()`.
public enum SystemClocks {
    /// `CLOCK_BOOTTIME`: monotonic, and counting while the system is suspended.
    public static var bootTime: Duration { .nanoseconds(alarmd_boottime_nanoseconds()) }

    /// Whether the kernel considers the wall clock synchronised by an NTP client (`false` when
    /// its state cannot be read: ``synchronizationReadError``).
    public static var isSynchronized: Bool { alarmd_clock_is_synchronized() == 1 }

    /// The `errno` that keeps the kernel's NTP state from being read (`EPERM` under a seccomp
    /// filter without `clock_adjtime`), or `nil` when it can be.
    public static var synchronizationReadError: Int32? {
        let result = alarmd_clock_is_synchronized()
        return result < 0 ? -result : nil
    }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to `Int64` (the unit of the kernel's clocks).
    public var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, carry) = product.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflow, !carry else { return seconds < 0 ? .min : .max }
        return total
    }
}
