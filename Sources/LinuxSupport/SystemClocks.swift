import CLinuxSupport

/// What the kernel says of its clocks beyond `Date()`.
public enum SystemClocks {
    /// `CLOCK_BOOTTIME`: monotonic, and counting while the system is suspended.
    public static var bootTime: Duration { .nanoseconds(alarmd_boottime_nanoseconds()) }

    /// Whether the kernel considers the wall clock synchronised by an NTP client.
    public static var isSynchronized: Bool { alarmd_clock_is_synchronized() != 0 }
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
