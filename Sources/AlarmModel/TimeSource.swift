import FoundationEssentials

/// Where the wall clock's time came from, as far as the device can tell: how much to believe it.
///
/// A Raspberry Pi has no battery-backed clock: after a power cut it boots with the time saved at
/// the last shutdown (`restored`), behind by the length of the outage, until NTP or a person
/// puts it right.
public enum TimeSource: String, Codable, Hashable, Sendable, CaseIterable {
    /// The kernel reports the clock synchronised by an NTP client (timesyncd, chrony), now or
    /// earlier in this boot.
    case ntp
    /// A kernel RTC reads a time after the release, and set the system clock at boot (`hctosys`)
    /// or agrees with it (a module's RTC, which udev reads after boot).
    case rtc
    /// A paired administrator's phone set it in this boot.
    case phone
    /// Only a clock file saved before the last shutdown (systemd-timesyncd's or fake-hwclock's)
    /// set it: the clock's best guess.
    case restored
    /// It reads before the firmware's release date: never set.
    case unset

    /// Whether something outside the machine confirmed the time (the display blinks it otherwise).
    public var isConfirmed: Bool {
        switch self {
        case .ntp, .rtc, .phone: true
        case .restored, .unset: false
        }
    }
}

/// The time source and when it last vouched for the clock (`nil`: never, or not known).
public struct TimeSourceStatus: Codable, Hashable, Sendable {
    public var source: TimeSource
    /// For `ntp` the last moment the kernel reported it synchronised, for `rtc` the boot, for
    /// `phone` when the phone set it, for `restored` when the clock file was last saved.
    public var confirmedAt: Date?

    public init(source: TimeSource, confirmedAt: Date?) {
        self.source = source
        self.confirmedAt = confirmedAt
    }
}
