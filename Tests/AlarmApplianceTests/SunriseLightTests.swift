import AlarmAppliance
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmSimulator
import AlarmTestKit
import FoundationEssentials
import Testing

@testable import AlarmEngine

/// The sunrise light: it rises before the alarm in equal steps of perceived lightness, is full
/// while the alarm rings or is snoozed, and goes off or stays on after it as the household chose.
/// Monday 23 November 2026 in Berlin, on a manual clock.
@Suite struct SunriseLightTests {
    static func settings(lead minutes: Double = 30, afterStop: ApplianceSettings.LightAfterStop = .off) -> ApplianceSettings {
        var settings = ApplianceSettings()
        settings.sunriseLead = .seconds(minutes * 60)
        settings.lightAfterStop = afterStop
        return settings
    }

    @Test func theCurveIsCIELightnessFromDarkToFull() {
        #expect(PerceivedLightness.output(lightness: 0) == 0)
        #expect(PerceivedLightness.output(lightness: 1) == 1)
        // Half as bright to the eye is under a fifth of the light.
        #expect(abs(PerceivedLightness.output(lightness: 0.5) - 0.1842) < 0.0001)
        var previous = -1.0
        for step in 0...100 {
            let lightness = Double(step) / 100
            let output = PerceivedLightness.output(lightness: lightness)
            #expect(output > previous, "rises at every step")
            #expect(abs(PerceivedLightness.lightness(output: output) - lightness) < 1e-6)
            previous = output
        }
    }

    @Test func itRisesFromItsLeadToFullAtTheAlarmAndStaysFullWhileRinging() async throws {
        let rig = try await ApplianceRig(now: Scene.monday(6, 0), settings: Self.settings(lead: 30), withLight: true)
        let light = try #require(rig.light)
        try await rig.schedule(Scene.alarm(7, 0))
        #expect(light.output == 0)
        #expect(await rig.appliance.nextWake.map { $0 <= Scene.monday(6, 30) } == true, "woken when the sunrise starts")

        await rig.advance(to: Scene.monday(6, 30))
        #expect(light.output == 0, "the first step is dark")
        await rig.advance(to: Scene.monday(6, 45))
        #expect(abs(light.output - PerceivedLightness.output(lightness: 0.5)) < 0.001, "halfway in time, half as bright to the eye")
        let wake = try #require(await rig.appliance.nextWake)
        #expect(wake.timeIntervalSince(Scene.monday(6, 45)) <= 10, "the next step is at most 10 s away")
        await rig.advance(to: Scene.monday(6, 59, 50))
        #expect(light.output > 0.97 && light.output < 1)
        let steps = light.history
        #expect(steps == steps.sorted(), "it only ever rises")

        try await rig.advanceToNextDeadline()
        #expect(rig.audio.nowPlaying != nil)
        #expect(light.output == 1)
        await rig.advance(by: 120)
        #expect(light.output == 1, "full while it rings")
    }

    @Test func snoozeKeepsItOnAndStopTurnsItOffOrLeavesItOnAsTheHouseholdChose() async throws {
        for afterStop in ApplianceSettings.LightAfterStop.allCases {
            let rig = try await ApplianceRig(now: Scene.monday(6, 50), settings: Self.settings(lead: 5, afterStop: afterStop), withLight: true)
            let light = try #require(rig.light)
            let id = try await rig.schedule(Scene.alarm(7, 0))
            try await rig.advanceToNextDeadline()
            await rig.tap(.snooze)
            #expect(await rig.state(of: id) == .countdown)
            #expect(light.output == 1, "snoozed: still on")
            try await rig.advanceToNextDeadline()
            await rig.tap(.stop)
            #expect(rig.audio.nowPlaying == nil)
            switch afterStop {
            case .off:
                #expect(light.output == 0, "off with the alarm")
            case .on:
                #expect(light.output == 1, "left on to get up by")
                await rig.advance(by: 30 * 60)
                #expect(light.output == 1)
                await rig.tap(.stop)
                #expect(light.output == 0, "a STOP with nothing ringing turns it off")
            }
        }
    }

    /// The light as a bedside lamp, turned on by hand (the household's automation): a brighter
    /// sunrise shows through, the alarm takes it over, STOP with nothing ringing turns it off.
    @Test func aLightTurnedOnByHandStaysUntilStopAndGivesWayToTheSunriseAndTheAlarm() async throws {
        let rig = try await ApplianceRig(now: Scene.monday(6, 0), settings: Self.settings(lead: 30), withLight: true)
        let light = try #require(rig.light)
        #expect(await rig.appliance.setLight(byHand: 0.3))
        #expect(light.output == 0.3)
        #expect(await rig.appliance.lightOutput == 0.3)
        await rig.tap(.stop)
        #expect(light.output == 0, "STOP with nothing ringing turns it off")

        #expect(await rig.appliance.setLight(byHand: 0.3))
        try await rig.schedule(Scene.alarm(7, 0))
        await rig.advance(to: Scene.monday(6, 45))
        #expect(light.output == 0.3, "dimmer than the lamp: the sunrise does not darken it")
        await rig.advance(to: Scene.monday(6, 58))
        #expect(light.output > 0.8, "brighter than the lamp: the sunrise shows through")
        try await rig.advanceToNextDeadline()
        #expect(light.output == 1)
        await rig.tap(.stop)
        #expect(light.output == 0, "the alarm took the light over: off after it, not back to the lamp")
        #expect(await rig.appliance.setLight(byHand: nil))
        #expect(light.output == 0)
    }

    @Test func aLightLeftOnGoesOffAfterTheHouseholdsTime() async throws {
        var settings = Self.settings(lead: 5, afterStop: .on)
        settings.lightKeptOn = .seconds(45 * 60)
        let rig = try await ApplianceRig(now: Scene.monday(6, 50), settings: settings, withLight: true)
        let light = try #require(rig.light)
        try await rig.schedule(Scene.alarm(7, 0))
        try await rig.advanceToNextDeadline()
        await rig.tap(.stop)
        #expect(light.output == 1)
        let off = try #require(await rig.appliance.nextWake)
        #expect(off <= Scene.monday(7, 45, 1))
        await rig.advance(to: Scene.monday(7, 45, 1))
        #expect(light.output == 0)
    }

    @Test func aLightLeftOnNeverTakesAStopMeantForATimerNorOneAfterItsTime() async throws {
        var settings = Self.settings(lead: 5, afterStop: .on)
        settings.lightKeptOn = .seconds(10 * 60)
        let rig = try await ApplianceRig(now: Scene.monday(6, 50), settings: settings, withLight: true)
        let light = try #require(rig.light)
        try await rig.schedule(Scene.alarm(7, 0))
        try await rig.advanceToNextDeadline()
        await rig.tap(.stop)
        #expect(light.output == 1)
        // A timer while the light is kept on: holding STOP ends the timer; the light stays.
        let tea = try await rig.schedule(Scene.timer(300))
        await rig.press(.stop)
        await rig.advance(by: 2.1)
        await rig.release(.stop)
        #expect(await rig.state(of: tea) == nil, "the timer was cancelled")
        #expect(light.output == 1)
        // After its time the light is off, and STOP on a timer acts at once again.
        await rig.advance(to: Scene.monday(7, 11))
        #expect(light.output == 0)
        let eggs = try await rig.schedule(Scene.timer(300))
        await rig.press(.stop)
        await rig.advance(by: 2.1)
        await rig.release(.stop)
        #expect(await rig.state(of: eggs) == nil)
    }

    @Test func anAlarmCountingDownToItsTimeKeepsItsSunriseRising() async throws {
        let rig = try await ApplianceRig(now: Scene.monday(6, 30), settings: Self.settings(lead: 20), withLight: true)
        let light = try #require(rig.light)
        let definition = AlarmDefinition(
            schedule: .relative(.init(time: .init(hour: 7, minute: 0), repeats: .never)),
            countdownDuration: .init(preAlert: 600, postAlert: 540), presentation: Scene.presentation())
        let id = try await rig.schedule(definition)
        await rig.advance(to: Scene.monday(6, 45))
        #expect(abs(light.output - PerceivedLightness.output(lightness: 0.25)) < 0.001)
        await rig.advance(to: Scene.monday(6, 55))
        #expect(await rig.state(of: id) == .countdown, "its pre-alert countdown")
        #expect(abs(light.output - PerceivedLightness.output(lightness: 0.75)) < 0.001, "still rising to its time")
    }

    @Test func anAlarmsOwnLeadWinsAndZeroKeepsItsLightOffAsATimersIs() async throws {
        let rig = try await ApplianceRig(now: Scene.monday(6, 0), settings: Self.settings(lead: 30), withLight: true)
        let light = try #require(rig.light)
        let id = try await rig.schedule(Scene.alarm(7, 0))
        _ = try await rig.runtime.setWake(AlarmWake(lightLeadSeconds: 600), id: id, client: Scene.owner)
        await rig.advance(to: Scene.monday(6, 45))
        #expect(light.output == 0, "its own 10 minutes have not begun")
        await rig.advance(to: Scene.monday(6, 55))
        #expect(abs(light.output - PerceivedLightness.output(lightness: 0.5)) < 0.001)

        _ = try await rig.runtime.setWake(AlarmWake(lightLeadSeconds: 0), id: id, client: Scene.owner)
        await rig.advance(by: 1)
        #expect(light.output == 0, "no light for this alarm")
        try await rig.advanceToNextDeadline()
        #expect(rig.audio.nowPlaying != nil && light.output == 0)
        await rig.tap(.stop)

        try await rig.schedule(Scene.timer(60))
        try await rig.advanceToNextDeadline()
        #expect(rig.audio.nowPlaying != nil && light.output == 0, "a timer is not a wake-up")
    }

    @Test func aLightThatFailsNeverKeepsTheSoundFromRingingAndIsTriedAgain() async throws {
        let rig = try await ApplianceRig(now: Scene.monday(6, 59), settings: Self.settings(lead: 30), withLight: true)
        let light = try #require(rig.light)
        try await rig.schedule(Scene.alarm(7, 0))
        light.failNextSet(with: HardwareError(.io, device: "/sys/class/pwm/pwmchip0/pwm0"))
        try await rig.advanceToNextDeadline()
        #expect(rig.audio.nowPlaying != nil, "the sound rings")
        #expect(await rig.appliance.lightFault?.kind == .io)
        await rig.advance(by: 11)
        #expect(light.output == 1, "tried again after the retry wait")
        #expect(await rig.appliance.lightFault == nil)
    }

    @Test func theSunriseRisesDuringNightHours() async throws {
        var settings = Self.settings(lead: 20)
        settings.nightHours = NightHours("22:00-07:30")
        let rig = try await ApplianceRig(now: Scene.monday(6, 0), settings: settings, withLight: true)
        let light = try #require(rig.light)
        try await rig.schedule(Scene.alarm(7, 0))
        await rig.advance(to: Scene.monday(6, 50))
        #expect(light.output > 0.1, "the sunrise is the point of the night ending")
    }

    /// The running appliance (its own timer, fed by the engine's published changes): an alarm
    /// 25 s ahead is lit at once by the household's 20 minutes, then its own 20 s lead darkens it
    /// and its sunrise starts on time, 20 s before, on a wake of the appliance's own.
    @Test func aLeadShortenedAfterSchedulingStartsItsSunriseOnTheRunningAppliancesOwnWake() async throws {
        let clock = ManualWallClock(now: Scene.monday(6, 59, 35))
        let directory = try TemporaryDirectory()
        let runtime = try AlarmRuntime(
            configuration: .init(clockTrust: .always, storeDirectory: directory.path), clock: clock,
            timeZones: ManualTimeZoneProvider(Scene.berlin), authorizer: FixedAuthorization(.authorized),
            logger: Scene.logger)
        let light = FakeLight()
        let appliance = Appliance(
            runtime: runtime,
            hardware: ApplianceHardware(
                buttons: FakeButtonInput(clock: clock), indicator: FakeIndicator(), audio: FakeAudioOutput(),
                display: FakeCharacterDisplay(), light: light),
            clock: clock, settings: Self.settings(lead: 20), logger: Scene.logger)
        var outputs = light.events().makeAsyncIterator()
        let engine = Task { await runtime.run() }
        let device = Task { await appliance.run() }
        #expect(await outputs.nextElement() == 0, "dark at start")

        let id = Alarm.ID()
        _ = try await runtime.schedule(id: id, definition: Scene.alarm(7, 0), client: Scene.owner)
        let lit = try #require(await outputs.nextElement())
        #expect(lit > 0.9, "inside the household's 20 minutes")
        _ = try await runtime.setWake(AlarmWake(lightLeadSeconds: 20), id: id, client: Scene.owner)
        #expect(await outputs.nextElement() == 0, "its own 20 s have not begun")
        await clock.waitForSleeper(until: Scene.monday(6, 59, 40))
        clock.advance(to: Scene.monday(6, 59, 40))
        await clock.waitForSleeper(until: Scene.monday(6, 59, 41))
        clock.advance(to: Scene.monday(6, 59, 41))
        let first = try #require(await outputs.nextElement())
        #expect(first > 0 && first < 0.01, "the first step of the sunrise")

        device.cancel()
        engine.cancel()
        await device.value
        await engine.value
    }
}
