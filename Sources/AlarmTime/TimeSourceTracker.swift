import AlarmModel
import FoundationEssentials

/// What the machine says about its clock, read in one go (``SystemClockReadings`` on a board).
public struct ClockReadings: Hashable, Sendable {
    /// The wall clock now.
    public var now: Date
    /// When this boot began, on the wall clock (now minus `CLOCK_BOOTTIME`).
    public var bootedAt: Date
    /// Whether the kernel reports the clock synchronised (`adjtimex`: no `STA_UNSYNC`, no `TIME_ERROR`).
    public var ntpSynchronized: Bool
    /// The first RTC, if the kernel has one.
    public var rtc: RTCReading?
    /// When a clock file was last saved (the newest of systemd-timesyncd's and fake-hwclock's).
    public var savedClockAt: Date?

    public init(now: Date, bootedAt: Date, ntpSynchronized: Bool, rtc: RTCReading?, savedClockAt: Date?) {
        self.now = now
        self.bootedAt = bootedAt
        self.ntpSynchronized = ntpSynchronized
        self.rtc = rtc
        self.savedClockAt = savedClockAt
    }
}

/// `/sys/class/rtc/rtc0` as the kernel shows it.
public struct RTCReading: Hashable, Sendable {
    /// `hctosys`: the kernel set the system clock from this RTC at boot.
    public var setSystemClockAtBoot: Bool
    /// `since_epoch`: what the RTC reads now; `nil` if it cannot be read (no battery, not set).
    public var reads: Date?

    public init(setSystemClockAtBoot: Bool, reads: Date?) {
        self.setSystemClockAtBoot = setSystemClockAtBoot
        self.reads = reads
    }
}

/// Decides the clock's ``TimeSource`` from successive readings, remembering for the rest of the
/// boot what vouched for it: NTP that was synchronised once, a phone that set it.
///
/// ```swift
/// var tracker = TimeSourceTracker(releaseDate: release)
/// let (status, changed) = tracker.update(readings)   // changed: log it once
/// ```
public struct TimeSourceTracker: Sendable {
    public let releaseDate: Date
    public private(set) var status: TimeSourceStatus?
    private var lastSynchronized: Date?
    private var phoneSetAt: Date?

    /// How far the clock and the RTC may differ and still agree (the RTC counts whole seconds,
    /// and is read a moment apart from the clock).
    public static let rtcAgreement: TimeInterval = 2

    public init(releaseDate: Date) {
        self.releaseDate = releaseDate
    }

    /// A phone set the clock at `date` (after the step, on the new time).
    public mutating func phoneSetTheClock(at date: Date) {
        phoneSetAt = date
    }

    /// The source for `readings`, and whether it differs from the last one (in source, not in
    /// its confirmation time, which moves on every reading while NTP is synchronised).
    @discardableResult
    public mutating func update(_ readings: ClockReadings) -> (status: TimeSourceStatus, changed: Bool) {
        if readings.ntpSynchronized { lastSynchronized = readings.now }
        let next = decide(readings)
        let changed = next.source != status?.source
        status = next
        return (next, changed)
    }

    private func decide(_ readings: ClockReadings) -> TimeSourceStatus {
        guard readings.now >= releaseDate else { return TimeSourceStatus(source: .unset, confirmedAt: nil) }
        // The latest to vouch wins: a phone that set the clock after NTP lost it, or NTP after a phone.
        switch (lastSynchronized, phoneSetAt) {
        case (let synchronized?, let phone?):
            return phone > synchronized
                ? TimeSourceStatus(source: .phone, confirmedAt: phone) : TimeSourceStatus(source: .ntp, confirmedAt: synchronized)
        case (let synchronized?, nil):
            return TimeSourceStatus(source: .ntp, confirmedAt: synchronized)
        case (nil, let phone?):
            return TimeSourceStatus(source: .phone, confirmedAt: phone)
        case (nil, nil):
            break
        }
        if let rtc = readings.rtc, let reads = rtc.reads, reads >= releaseDate {
            // The kernel set the clock from it (a driver built in), or the clock agrees with it:
            // a driver loaded as a module (a DS3231's rtc-ds1307) is read by udev's hwclock-set
            // after boot, and the kernel's hctosys flag stays 0.
            if rtc.setSystemClockAtBoot { return TimeSourceStatus(source: .rtc, confirmedAt: readings.bootedAt) }
            if abs(reads.timeIntervalSince(readings.now)) <= Self.rtcAgreement {
                return TimeSourceStatus(source: .rtc, confirmedAt: readings.now)
            }
        }
        return TimeSourceStatus(source: .restored, confirmedAt: readings.savedClockAt)
    }
}
