import AlarmEngine
import AlarmHardware
import AlarmModel
import FoundationEssentials
import Testing

@testable import AlarmAppliance

/// Night hours: the LED shows nothing but a fault, and a press on the dark display only lights
/// it; an alert and a question take the device as by day.
@Suite struct NightHoursTests {
    static let threeAM = Scene.monday(3, 0)

    static func core() -> ApplianceCore {
        var settings = ApplianceSettings()
        settings.nightHours = NightHours("22:00-06:30")
        return ApplianceCore(settings: settings, displaySize: .sixteenByTwo)
    }

    static func press(_ button: Button, _ core: inout ApplianceCore, at wall: Date, monotonic seconds: Double) -> [PartCommand] {
        let moment = ApplianceMoment(wall: wall, monotonic: .seconds(seconds))
        let down = core.buttonEvent(ButtonEvent(button, .pressed, at: moment.monotonic), at: moment)
        let later = ApplianceMoment(wall: wall.addingTimeInterval(0.1), monotonic: .seconds(seconds + 0.1))
        return down + core.buttonEvent(ButtonEvent(button, .released, at: later.monotonic), at: later)
    }

    @Test func nightHoursParseAndRunOverMidnight() throws {
        let night = try #require(NightHours("22:00-06:30"))
        #expect(night.description == "22:00-06:30")
        for (time, inside) in [("21:59", false), ("22:00", true), ("00:00", true), ("06:29", true), ("06:30", false), ("12:00", false)] {
            let civil = try #require(CivilTime(time))
            #expect(night.contains(civil) == inside, "\(time)")
        }
        let afternoon = try #require(NightHours("13:00-15:00"))
        let two = try #require(CivilTime("14:00")), three = try #require(CivilTime("15:00"))
        #expect(afternoon.contains(two) && !afternoon.contains(three))
        for bad in ["22:00", "22:00-22:00", "25:00-06:00", "10pm-6am", ""] {
            #expect(NightHours(bad) == nil, "\(bad)")
        }
    }

    @Test func aPressOnTheDarkDisplayOnlyLightsItAndTheNextActs() {
        var core = Self.core()
        let countdown = Scene.record(Scene.countingDown(remaining: 300, now: Self.threeAM))
        core.observe(Scene.snapshot(now: Self.threeAM, countdowns: [countdown]))
        // The first SNOOZE at 03:00 wakes the display; the timer is not paused.
        #expect(Self.press(.snooze, &core, at: Self.threeAM, monotonic: 100).isEmpty)
        #expect(core.backlightUntil == Self.threeAM.addingTimeInterval(10))
        // Pressed again while lit: it acts as by day.
        let second = Self.press(.snooze, &core, at: Self.threeAM.addingTimeInterval(3), monotonic: 103)
        #expect(second.contains(.pressAlarm(.pause, on: countdown, because: "SNOOZE pressed")))
        // Dark again after the backlight's time: the next press only lights it.
        #expect(Self.press(.snooze, &core, at: Self.threeAM.addingTimeInterval(30), monotonic: 130).isEmpty)
    }

    @Test func byDayAndForAnAlertAPressActsAtOnce() {
        var day = Self.core()
        let countdown = Scene.record(Scene.countingDown(remaining: 300, now: Scene.monday(12, 0)))
        day.observe(Scene.snapshot(now: Scene.monday(12, 0), countdowns: [countdown]))
        #expect(Self.press(.snooze, &day, at: Scene.monday(12, 0), monotonic: 100)
            .contains(.pressAlarm(.pause, on: countdown, because: "SNOOZE pressed")))

        var night = Self.core()
        let ringing = Scene.record(Scene.alerting(at: 3, 0, since: Self.threeAM))
        night.observe(Scene.snapshot(now: Self.threeAM, alerting: [ringing]))
        let stop = Self.press(.stop, &night, at: Self.threeAM, monotonic: 100)
        #expect(stop.contains(.pressAlarm(.stop, on: ringing, because: "STOP pressed")), "an alert overrides the night")
    }

    @Test func missedAlarmsAreNotAcknowledgedByTheWakingPress() {
        var core = Self.core()
        core.observe(Scene.snapshot(now: Self.threeAM, missed: [Scene.missed("Gym", due: Self.threeAM.addingTimeInterval(-3600))]))
        #expect(Self.press(.stop, &core, at: Self.threeAM, monotonic: 100).isEmpty)
        #expect(Self.press(.stop, &core, at: Self.threeAM.addingTimeInterval(2), monotonic: 102).contains(.acknowledgeMissedAlarms))
    }

    @Test func atNightTheLEDShowsNothingButAFault() {
        let core = Self.core()
        let countdown = Scene.record(Scene.countingDown(remaining: 300, now: Self.threeAM))
        #expect(core.indicatorState(Scene.snapshot(now: Self.threeAM, countdowns: [countdown])) == .idle)
        #expect(core.indicatorState(Scene.snapshot(now: Self.threeAM, missed: [Scene.missed("Gym", due: Self.threeAM)])) == .idle)
        let ringing = Scene.record(Scene.alerting(at: 3, 0, since: Self.threeAM))
        guard case .alerting = core.indicatorState(Scene.snapshot(now: Self.threeAM, alerting: [ringing])) else {
            Issue.record("an alert must show at night")
            return
        }
        var faulty = Self.core()
        faulty.sound.recordFault(HardwareError(.deviceUnavailable, device: "hw:0"))
        #expect(faulty.indicatorState(Scene.snapshot(now: Self.threeAM)) == .hardwareFault)
        // By day the countdown shows.
        guard case .countingDown = core.indicatorState(Scene.snapshot(now: Scene.monday(12, 0), countdowns: [countdown])) else {
            Issue.record("by day a countdown shows")
            return
        }
    }
}
