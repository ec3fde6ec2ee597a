import AlarmControl
import AlarmEngine
import AlarmModel
import AlarmProtocol
import AlarmTime
import FoundationEssentials
import Glibc

/// Sets the machine's wall clock for `setTime`.
public protocol WallClockSetting: Sendable {
    /// Sets the wall clock to `time`, or throws why not (an errno, `EPERM` without `CAP_SYS_TIME`).
    func set(to time: Date) throws(ClockSetError)
}

/// Why the clock could not be set.
public struct ClockSetError: Error, CustomStringConvertible {
    public var errno: Int32
    /// Said instead of the errno's meaning (the simulator's refusal).
    public var reason: String?

    public init(errno: Int32, reason: String? = nil) {
        self.errno = errno
        self.reason = reason
    }

    public var description: String {
        if let reason { return reason }
        return errno == EPERM
            ? "alarmd may not set the clock (EPERM): the packaged alarmd.service grants it CAP_SYS_TIME for this"
            : "clock_settime failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// The simulator's: it never sets the computer it runs on.
public struct RefusingWallClockSetting: WallClockSetting {
    public init() {}

    public func set(to time: Date) throws(ClockSetError) {
        throw ClockSetError(errno: EPERM, reason: "the simulator does not set this computer's clock")
    }
}

/// The kernel's wall clock, through `clock_settime(CLOCK_REALTIME)`: alarmd's unit grants
/// `CAP_SYS_TIME` and allows the call (systemd-timedated would refuse while timesyncd is enabled,
/// which is exactly when a clock without network needs a person to set it).
public struct SystemWallClockSetting: WallClockSetting {
    public init() {}

    public func set(to time: Date) throws(ClockSetError) {
        let seconds = time.timeIntervalSince1970.rounded(.down)
        var value = timespec(tv_sec: Int(seconds), tv_nsec: Int((time.timeIntervalSince1970 - seconds) * 1e9))
        guard clock_settime(CLOCK_REALTIME, &value) == 0 else { throw ClockSetError(errno: errno) }
    }
}

extension DaemonOperations {
    /// What `setTime` needs: how to set the clock and what the machine says of it now.
    public struct TimeSetting: Sendable {
        public var setter: any WallClockSetting
        public var readings: @Sendable () -> ClockReadings

        public init(setter: any WallClockSetting, readings: @escaping @Sendable () -> ClockReadings) {
            self.setter = setter
            self.readings = readings
        }
    }

    /// How far a phone's clock may be from an NTP-synchronised one and still agree with it.
    public static let ntpAgreement: TimeInterval = 30
    /// No clock reads more than this after the later of the release and its own time.
    public static let furthestAhead: TimeInterval = 5 * 365 * 86_400

    /// `setTime`: a person's time for the clock, refused when NTP keeps a time it disagrees with
    /// (NTP wins), before the firmware's release or years ahead. Setting the time never silences
    /// an alarm: the engine handles the step as a confirmed jump.
    static func serveTime(_ handlers: inout ControlHandlers, runtime: AlarmRuntime, setting: TimeSetting) {
        handlers.register(.setTime) { call, parameters in
            let time = parameters.time, who = parameters.from == .phone ? "phone" : "shell"
            let release = ClockTrustPolicy.firmwareReleaseDate
            guard time.timeIntervalSince1970.isFinite, time >= release else {
                throw ControlRequestError(
                    id: call.request.id, .invalidConfiguration,
                    "\(Self.instant(time)) is before this firmware's release (\(Self.instant(release))): the \(who)'s clock is wrong")
            }
            let before = setting.readings()
            guard time <= max(before.now, release).addingTimeInterval(furthestAhead) else {
                throw ControlRequestError(
                    id: call.request.id, .invalidConfiguration,
                    "\(Self.instant(time)) is years ahead of the clock (\(Self.instant(before.now))): the \(who)'s clock is wrong")
            }
            if before.ntpSynchronized {
                let off = time.timeIntervalSince(before.now)
                guard abs(off) <= ntpAgreement else {
                    throw ControlError(
                        .refused,
                        "NTP keeps this clock's time (synchronised now), and the \(who)'s differs by \(Int(off.rounded())) s: "
                            + "NTP wins; check the \(who)'s clock")
                }
                return SetTimeReport(previous: before.now, now: before.now, timeSource: await runtime.timeSource?.source)
            }
            do {
                try setting.setter.set(to: time)
            } catch {
                throw ControlError(.serviceUnavailable, "the clock cannot be set: \(error)")
            }
            await runtime.clockSetByPerson(from: who, previous: before.now)
            return SetTimeReport(previous: before.now, now: setting.readings().now, timeSource: await runtime.timeSource?.source)
        }
    }

    private static func instant(_ date: Date) -> String {
        date.timeIntervalSince1970.isFinite ? ISO8601.format(date, in: .utc) : "\(date.timeIntervalSince1970)"
    }
}
