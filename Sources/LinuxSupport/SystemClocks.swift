import CLinuxSupport

/// What the kernel says of its clocks beyond `Date()`.
public enum SystemClocks {
    /// `CLOCK_BOOTTIME`: monotonic, and counting while the system is suspended.
    public static var bootTime: Duration { .nanoseconds(alarmd_boottime_nanoseconds()) }

    /// Whether the kernel considers the wall clock synchronised by an NTP client.
    public static var isSynchronized: Bool { alarmd_clock_is_synchronized() != 0 }
}
