import AlarmTime
import FoundationEssentials

/// `alarmd selftest`'s real-time clock check, from sysfs only (no device is opened, so it runs
/// beside the service as well): is there an RTC, does it read a real time, does it agree with the
/// clock (with NTP's time when the kernel is synchronised), did it set the clock at boot, and on
/// a Pi 5 is there a battery to keep it through a power cut.
public struct RTCCheck: Sendable {
    public let profile: BoardProfile.RTC
    public let readings: ClockReadings
    /// The Pi 5's `rtc-rpi` battery attributes; `nil` for other RTCs.
    public let battery: Battery?
    /// No RTC that reads earlier holds a real time (the firmware's release date).
    public let releaseDate: Date

    public init(profile: BoardProfile.RTC, readings: ClockReadings, battery: Battery?, releaseDate: Date) {
        self.profile = profile
        self.readings = readings
        self.battery = battery
        self.releaseDate = releaseDate
    }

    /// What the check found: a failure has a hint.
    public struct Verdict: Hashable, Sendable {
        public var passed: Bool
        public var detail: String
        public var hint: String?

        public init(passed: Bool, detail: String, hint: String? = nil) {
            self.passed = passed
            self.detail = detail
            self.hint = hint
        }
    }

    public struct Battery: Hashable, Sendable {
        public var volts: Double
        /// The trickle charger's voltage; 0 when it is off (the default).
        public var chargingVolts: Double

        public init(volts: Double, chargingVolts: Double) {
            self.volts = volts
            self.chargingVolts = chargingVolts
        }
    }

    /// Reads the battery attributes the Pi 5's RTC driver exposes beside `rtc0` (microvolts).
    public static func battery(root: String = "/") -> Battery? {
        let directory = (root.hasSuffix("/") ? root : root + "/") + "sys/class/rtc/rtc0/device/"
        guard let volts = microvolts(directory + "battery_voltage") else { return nil }
        return Battery(volts: volts, chargingVolts: microvolts(directory + "charging_voltage") ?? 0)
    }

    /// A flat or missing coin cell reads near 0 V; a CR2032 or ML2032 in use 2.8 to 3.3 V.
    public static let lowestBatteryVolts = 2.5

    public func run() -> Verdict {
        guard let rtc = readings.rtc else { return absent() }
        guard let reads = rtc.reads, reads >= releaseDate else {
            return fail(
                "rtc0 reads \(rtc.reads.map { ISO8601.format($0, in: .utc) } ?? "nothing"): not set, or its battery is flat",
                hint: "once the clock's time is right (NTP, or the phone page), `sudo hwclock --systohc` writes it to the RTC; "
                    + "then check its battery")
        }
        let offset = reads.timeIntervalSince(readings.now)
        if abs(offset) > TimeSourceTracker.rtcAgreement {
            let by = "\(Int(offset.rounded())) s"
            if readings.ntpSynchronized {
                return fail(
                    "rtc0 is \(by) off NTP's time",
                    hint: "`sudo hwclock --systohc` writes NTP's time to it; if it drifts again, its battery or crystal is failing")
            }
            return fail(
                "rtc0 and the clock differ by \(by), and nothing confirms which is right",
                hint: "if the RTC is right, `sudo hwclock --hctosys`; if the clock is, `sudo hwclock --systohc`")
        }
        guard rtc.setSystemClockAtBoot else {
            return fail(
                "rtc0 did not set the clock at boot (hctosys 0): it held no valid time when its driver loaded",
                hint: "`sudo hwclock --systohc` once the time is right, check its battery, and reboot to see it set the clock")
        }
        var detail = "rtc0 agrees with the clock (\(Int(offset.rounded())) s) and set it at boot"
        if let battery {
            guard battery.volts >= Self.lowestBatteryVolts else {
                return fail(
                    "the RTC's battery reads \(Self.volts(battery.volts)): none fitted, or flat; the RTC stops in a power cut",
                    hint: "fit one on the J5 connector: a rechargeable ML2032 with `dtparam=rtc_bbat_vchg=3000000` in "
                        + "/boot/firmware/config.txt, or a CR2032 with the charger left off (never charge a CR2032)")
            }
            detail += "; battery \(Self.volts(battery.volts)), charger "
                + (battery.chargingVolts > 0 ? "on at \(Self.volts(battery.chargingVolts))" : "off")
        }
        return Verdict(passed: true, detail: detail)
    }

    private func absent() -> Verdict {
        if profile.builtIn {
            return fail(
                "no RTC (/sys/class/rtc/rtc0), though the board has one",
                hint: "`dmesg | grep -i rtc` says why its driver did not register")
        }
        var detail = "none fitted: after a power cut with no network the clock starts from the time saved at shutdown"
        if let add = profile.add {
            detail += "; to keep time, fit one (\(add) in /boot/firmware/config.txt, board/README.md)"
        }
        return Verdict(passed: true, detail: detail)
    }

    private func fail(_ detail: String, hint: String) -> Verdict {
        Verdict(passed: false, detail: detail, hint: hint)
    }

    private static func volts(_ value: Double) -> String {
        "\((value * 100).rounded() / 100) V"
    }

    private static func microvolts(_ path: String) -> Double? {
        SystemClockReadings.firstLine(of: path).flatMap { Double($0) }.map { $0 / 1_000_000 }
    }
}
