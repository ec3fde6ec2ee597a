import AlarmBoard
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Glibc
import Testing

/// `alarmd selftest`'s RTC verdicts, from readings as sysfs gives them.
@Suite struct RTCCheckTests {
    static let release = Date(timeIntervalSince1970: 1_793_491_200)
    static let now = release.addingTimeInterval(40 * 86_400)
    static let pi4 = BoardProfile.RTC(builtIn: false, add: "dtoverlay=i2c-rtc,ds3231")
    static let pi5 = BoardProfile.RTC(builtIn: true)

    func check(
        _ profile: BoardProfile.RTC = pi4, rtc: RTCReading?, synchronized: Bool = false, battery: RTCCheck.Battery? = nil
    ) -> RTCCheck.Verdict {
        let readings = ClockReadings(
            now: Self.now, bootedAt: Self.now.addingTimeInterval(-600), ntpSynchronized: synchronized, rtc: rtc, savedClockAt: nil)
        return RTCCheck(profile: profile, readings: readings, battery: battery, releaseDate: Self.release).run()
    }

    @Test func noRTCOnABoardWithoutOnePassesAndSaysHowToAddOne() {
        let verdict = check(rtc: nil)
        #expect(verdict.passed)
        #expect(verdict.detail.contains("dtoverlay=i2c-rtc,ds3231"))
    }

    @Test func noRTCOnABoardThatHasOneFails() {
        let verdict = check(Self.pi5, rtc: nil)
        #expect(!verdict.passed)
        #expect(verdict.hint?.contains("dmesg") == true)
    }

    @Test func aGoodRTCThatSetTheClockPasses() {
        let verdict = check(rtc: RTCReading(setSystemClockAtBoot: true, reads: Self.now.addingTimeInterval(-1)))
        #expect(verdict == RTCCheck.Verdict(passed: true, detail: "rtc0 agrees with the clock (-1 s) and set it at boot", hint: nil))
    }

    @Test func anUnsetRTCFailsWithTheCommandThatSetsIt() {
        let verdict = check(rtc: RTCReading(setSystemClockAtBoot: true, reads: Date(timeIntervalSince1970: 946_684_800)))
        #expect(!verdict.passed)
        #expect(verdict.detail.hasPrefix("rtc0 reads 2000-01-01"))
        #expect(verdict.hint?.contains("hwclock --systohc") == true)
    }

    @Test func anRTCOffNTPsTimeFailsAndOneOffAnUnconfirmedClockSaysNeitherIsKnown() {
        let off = RTCReading(setSystemClockAtBoot: true, reads: Self.now.addingTimeInterval(-90))
        let synced = check(rtc: off, synchronized: true)
        #expect(!synced.passed)
        #expect(synced.detail == "rtc0 is -90 s off NTP's time")
        let unconfirmed = check(rtc: off)
        #expect(unconfirmed.detail == "rtc0 and the clock differ by -90 s, and nothing confirms which is right")
        #expect(unconfirmed.hint?.contains("hwclock --hctosys") == true)
    }

    @Test func anRTCThatDidNotSetTheClockAtBootFails() {
        let verdict = check(rtc: RTCReading(setSystemClockAtBoot: false, reads: Self.now))
        #expect(!verdict.passed)
        #expect(verdict.detail.contains("hctosys 0"))
    }

    @Test func thePi5sBatteryIsReportedAndAFlatOneFails() {
        let good = RTCReading(setSystemClockAtBoot: true, reads: Self.now)
        let charged = check(Self.pi5, rtc: good, battery: .init(volts: 3.02, chargingVolts: 0))
        #expect(charged.passed)
        #expect(charged.detail.hasSuffix("; battery 3.02 V, charger off"))
        let charging = check(Self.pi5, rtc: good, battery: .init(volts: 2.95, chargingVolts: 3.0))
        #expect(charging.detail.hasSuffix("; battery 2.95 V, charger on at 3.0 V"))
        let flat = check(Self.pi5, rtc: good, battery: .init(volts: 0.02, chargingVolts: 0))
        #expect(!flat.passed)
        #expect(flat.hint?.contains("rtc_bbat_vchg=3000000") == true)
    }

    @Test func theBatteryIsReadInMicrovoltsBesideRTC0() throws {
        let root = try TemporaryDirectory()
        var directory = root.path
        for component in ["sys", "class", "rtc", "rtc0", "device"] {
            directory += "/" + component
            mkdir(directory, 0o755)
        }
        for (name, value) in [("battery_voltage", "3021000\n"), ("charging_voltage", "0\n")] {
            let file = try #require(fopen(directory + "/" + name, "w"))
            fputs(value, file)
            fclose(file)
        }
        #expect(RTCCheck.battery(root: root.path) == RTCCheck.Battery(volts: 3.021, chargingVolts: 0))
        #expect(RTCCheck.battery(root: root.path + "/nothing") == nil)
    }
}
