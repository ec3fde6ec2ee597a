import AlarmTime
import FoundationEssentials

/// When the engine believes the wall clock.
///
/// A board without a real-time clock boots with a time in the past and jumps when NTP syncs. Until
/// the clock is trusted no scheduled alarm starts from a bogus time (timers still run: they measure
/// elapsed time), and the display says the clock is not set.
public enum ClockTrustPolicy: Codable, Hashable, Sendable {
    /// Always trusted: for tests and the simulator.
    case always
    /// Trusted once the clock reads at least this instant (the firmware's release date).
    case notBefore(Date)
    /// Trusted once the kernel reports the clock synchronised by NTP and it reads at least the
    /// release date. While untrusted the engine also re-checks once a minute, since a clock can
    /// become synchronised by slewing, without a jump to wake it.
    case synchronized

    /// The release date of this firmware: no correct clock reads earlier. Update it at each release.
    public static let firmwareReleaseDate = Date(timeIntervalSince1970: 1_793_491_200)  // 2026-11-01T00:00:00Z

    public static let `default` = ClockTrustPolicy.notBefore(firmwareReleaseDate)

    /// Whether a clock reading `now` is to be believed.
    public func isTrusted(now: Date) -> Bool {
        switch self {
        case .always: true
        case .notBefore(let floor): now >= floor
        case .synchronized: now >= Self.firmwareReleaseDate && SystemWallClock.isSynchronized
        }
    }

    /// How long the engine may go without re-checking trust while untrusted; `nil` when only a
    /// clock jump can change the answer.
    var recheckInterval: TimeInterval? {
        if case .synchronized = self { return 60 }
        return nil
    }
}
