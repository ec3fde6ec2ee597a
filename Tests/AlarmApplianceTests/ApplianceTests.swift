import AlarmAppliance
import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmProtocol
import FoundationEssentials
import Testing

/// The appliance driven step by step on fakes: sound, LED, display and wake-ups. The buttons are
/// in `ApplianceTests+Buttons.swift`.
@Suite(.timeLimit(.minutes(5))) struct ApplianceTests {
    static let blink = IndicatorPattern.blink(.white, on: .milliseconds(250), off: .milliseconds(250))
    static let breathe = IndicatorPattern.breathe(.white, period: .seconds(4))
    static let faultFlashes = IndicatorPattern.flashes(IndicatorPolicy.faultColor, count: 3, pause: .seconds(2))
    static let missedFlashes = IndicatorPattern.flashes(IndicatorPolicy.missedColor, count: 2, pause: .seconds(4))
    static let noSound = HardwareError(.deviceUnavailable, device: "hw:0")

    // MARK: - Sound

    @Test func anAlertPlaysTheBuiltInToneWithTheCrescendoBlinksAndLightsTheDisplay() async throws {
        var settings = ApplianceSettings()
        settings.volume = -10
        settings.crescendoStart = -40
        settings.crescendo = .seconds(20)
        let rig = try await ApplianceRig(settings: settings, policy: EnginePolicy(autoSilence: 60))
        let id = try await rig.schedule(Scene.alarm(7, 0))
        #expect(rig.audioLog.calls.isEmpty)
        #expect(rig.indicator.pattern == .off)
        #expect(!rig.display.isBacklightOn)

        try await rig.advanceToNextDeadline()
        #expect(rig.clock.now == Scene.monday(7, 0))
        #expect(await rig.state(of: id) == .alerting)
        #expect(rig.audioLog.calls == [.play(.builtInTone, GainRamp(from: -40, to: -10, over: .seconds(20)), started: true)])
        #expect(rig.audio.nowPlaying?.looping == true)
        #expect(rig.indicator.pattern == Self.blink)
        #expect(rig.display.isBacklightOn)
        #expect(rig.lines == ["①Wake up   07:00", "Stop     ②Snooze"])

        // Nobody answers: it stops ringing after the auto-silence time, the light goes out.
        try await rig.advanceToNextDeadline()
        #expect(rig.clock.now == Scene.monday(7, 1))
        #expect(rig.audio.nowPlaying == nil)
        #expect(!rig.display.isBacklightOn)
        #expect(rig.indicator.pattern == Self.missedFlashes)
    }

    @Test func aNamedSoundPlaysItsFileFromTheSoundsDirectory() async throws {
        var settings = ApplianceSettings()
        settings.soundsDirectory = "/opt/alarmd/sounds"
        let rig = try await ApplianceRig(settings: settings)
        try await rig.schedule(Scene.alarm(7, 0, sound: .named("birds.wav")))
        try await rig.advanceToNextDeadline()
        #expect(rig.audioLog.calls == [.play(.file("/opt/alarmd/sounds/birds.wav"), settings.gainRamp, started: true)])
    }

    @Test func aNamedSoundThatCannotPlayFallsBackToTheBuiltInTone() async throws {
        let rig = try await ApplianceRig()
        try await rig.schedule(Scene.alarm(7, 0, sound: .named("birds.wav")))
        rig.audio.failNextPlay(with: HardwareError(.io, device: "/usr/share/alarmd/sounds/birds.wav"))
        try await rig.advanceToNextDeadline()
        let ramp = rig.settings.gainRamp
        #expect(rig.audioLog.calls == [
            .play(.file("/usr/share/alarmd/sounds/birds.wav"), ramp, started: false), .play(.builtInTone, ramp, started: true),
        ])
        #expect(await rig.appliance.soundFault == nil)
        #expect(rig.indicator.pattern == Self.blink)
        #expect(rig.lines[0] == "①Wake up   07:00")
    }

    @Test func aSoundThatFailsWhilePlayingFallsBackToTheBuiltInTone() async throws {
        let rig = try await ApplianceRig()
        try await rig.schedule(Scene.alarm(7, 0, sound: .named("birds.wav")))
        try await rig.advanceToNextDeadline()
        rig.audio.failWhilePlaying(with: Self.noSound)
        await rig.advance(by: 3)
        await rig.appliance.soundFailed(Self.noSound)
        #expect(rig.audioLog.started == [.file("/usr/share/alarmd/sounds/birds.wav"), .builtInTone])
        #expect(rig.audio.nowPlaying?.source == .builtInTone)
        // The crescendo goes on from where it was, not from the start.
        let gain = try #require(rig.audio.nowPlaying?.gain)
        #expect(abs(gain.start - rig.settings.gainRamp.decibels(after: .seconds(3))) < 1e-9)
        #expect(gain.duration == .seconds(27))
        #expect(await rig.appliance.soundFault == nil)
    }

    @Test func withNoWorkingOutputTheLEDAndDisplayStillAlertShowTheFaultAndPlayingIsRetried() async throws {
        let rig = try await ApplianceRig()
        try await rig.schedule(Scene.alarm(7, 0))
        rig.audio.setUnavailable(Self.noSound)
        try await rig.advanceToNextDeadline()
        #expect(rig.audio.nowPlaying == nil)
        #expect(rig.audioLog.calls == [.play(.builtInTone, rig.settings.gainRamp, started: false)])
        #expect(await rig.appliance.soundFault == Self.noSound)
        #expect(rig.indicator.pattern == Self.blink)
        #expect(rig.display.isBacklightOn)
        #expect(rig.lines == ["①Wake up - 07:00", "Stop     ②Snooze"])

        // Retried after soundRetryInterval (10 s), not before.
        await rig.advance(to: Scene.monday(7, 0, 9))
        #expect(rig.audioLog.calls.count == 1)
        await rig.advance(to: Scene.monday(7, 0, 10))
        #expect(rig.audioLog.calls.count == 2)
        rig.audio.setUnavailable(nil)
        await rig.advance(to: Scene.monday(7, 0, 20))
        #expect(rig.audioLog.started == [.builtInTone])
        let gain = try #require(rig.audio.nowPlaying?.gain)
        #expect(abs(gain.start - rig.settings.gainRamp.decibels(after: .seconds(20))) < 1e-9)
        #expect(await rig.appliance.soundFault == nil)
        #expect(rig.lines[0] == "①Wake up   07:00")
    }

    @Test func aSoundFaultShowsOnTheLEDOnceIdle() async throws {
        let rig = try await ApplianceRig()
        try await rig.schedule(Scene.alarm(7, 0))
        rig.audio.setUnavailable(Self.noSound)
        try await rig.advanceToNextDeadline()
        await rig.tap(.stop)
        #expect(rig.indicator.pattern == Self.faultFlashes)
        // Idle: no more retries, only the clock's minute.
        #expect(await rig.appliance.nextWake == Scene.monday(7, 0, 10))
        await rig.advance(to: Scene.monday(7, 0, 10))
        #expect(await rig.appliance.nextWake == Scene.monday(7, 1))
        #expect(rig.audioLog.calls.count == 1)
    }

    /// A sound card missing at start (the daemon's probe) shows before any alarm: fault flashes
    /// and "No sound" on the clock; an alarm still tries to play, and a working playback clears it.
    @Test func aSoundDeviceMissingAtStartShowsAtOnceAndAWorkingPlaybackClearsIt() async throws {
        let rig = try await ApplianceRig()
        await rig.appliance.soundUnavailable(Self.noSound)
        #expect(rig.indicator.pattern == Self.faultFlashes)
        #expect(rig.lines.joined(separator: "\n").contains("No sound: hw:0"), "\(rig.lines)")

        try await rig.schedule(Scene.alarm(7, 0))
        try await rig.advanceToNextDeadline()
        #expect(rig.audioLog.started == [.builtInTone])
        #expect(await rig.appliance.soundFault == nil)
        await rig.tap(.stop)
        #expect(rig.indicator.pattern != Self.faultFlashes)
        #expect(!rig.lines.joined(separator: "\n").contains("No sound"))
    }

    // MARK: - LED

    @Test func anRGBLEDShowsTheAlarmsTint() async throws {
        let rig = try await ApplianceRig(ledHasColor: true)
        try await rig.schedule(Scene.alarm(7, 0, tint: .blue))
        try await rig.advanceToNextDeadline()
        let blue = IndicatorColor(red: 0, green: 0.48, blue: 1)
        #expect(rig.indicator.pattern == .blink(blue, on: .milliseconds(250), off: .milliseconds(250)))
        await rig.tap(.snooze)
        #expect(rig.indicator.pattern == .breathe(blue, period: .seconds(4)))
    }

    @Test func anLEDWriteThatFailedAtTheAlertIsRetriedWithoutAPress() async throws {
        let rig = try await ApplianceRig()
        try await rig.schedule(Scene.alarm(7, 0))
        rig.indicator.failNextShow(with: HardwareError(.io, device: "gpiochip0:17"))
        try await rig.advanceToNextDeadline()
        #expect(rig.indicator.pattern == .off)
        #expect(await rig.appliance.indicatorFault != nil)
        let wake = await rig.appliance.nextWake
        #expect(wake != nil)
    }

    // MARK: - Missed alarms

    @Test func aMissedAlarmShowsUntilAPressWhichOnlyAcknowledgesIt() async throws {
        let rig = try await ApplianceRig(policy: EnginePolicy(missedAlarmGrace: 60))
        try await rig.schedule(Scene.alarm(7, 0))
        let later = try await rig.schedule(Scene.alarm(9, 0, title: "Dentist"))
        await rig.advance(to: Scene.monday(7, 5))   // the device "slept" through 07:00
        #expect(await rig.runtime.missedAlarms.count == 1)
        #expect(rig.lines == ["Missed 07:00    ", "Wake up         "])
        #expect(rig.indicator.pattern == Self.missedFlashes)

        await rig.advance(to: Scene.monday(7, 35))
        #expect(rig.lines == ["Missed 07:00    ", "Wake up         "])

        await rig.tap(.snooze)
        #expect(await rig.runtime.missedAlarms.isEmpty)
        #expect(await rig.state(of: later) == .scheduled)
        #expect(rig.lines == ["     07:35      ", "  ①Today 09:00  "])   // the clock, not the next alarm's details
        #expect(rig.indicator.pattern == .off)
        #expect(rig.display.isBacklightOn)
    }

    // MARK: - Wake-ups

    /// Steps the clock from one of the appliance's own wake-ups to the next until `end`.
    static func wakeUps(of rig: ApplianceRig, until end: Date) async -> Int {
        var count = 0
        while let next = await rig.appliance.nextWake, next <= end, count < 10_000 {
            await rig.advance(to: max(next, rig.clock.now.addingTimeInterval(0.001)))
            count += 1
        }
        return count
    }

    @Test func idleTheDeviceWakesOnceAMinuteAndCountingDownOnceASecond() async throws {
        let rig = try await ApplianceRig(now: Scene.monday(6, 59, 20))
        try await rig.schedule(Scene.alarm(9, 0))
        #expect(await rig.appliance.nextWake == Scene.monday(7, 0))
        #expect(await Self.wakeUps(of: rig, until: Scene.monday(7, 2, 30)) == 3)
        #expect(rig.clock.now == Scene.monday(7, 2))
        #expect(rig.lines[0] == "     07:02      ")

        try await rig.schedule(Scene.timer(300))
        #expect(await rig.appliance.nextWake == Scene.monday(7, 2, 1))
        await rig.advance(by: 0.5)
        let next = try #require(await rig.appliance.nextWake)
        #expect(abs(next.timeIntervalSince(Scene.monday(7, 2, 1))) < 1e-6)
        #expect(await Self.wakeUps(of: rig, until: Scene.monday(7, 2, 10)) == 10)
        #expect(rig.lines[1].hasPrefix("04:50"))
    }

    @Test func idleOnTheTallDisplayTheDeviceAlsoWakesOnceAMinute() async throws {
        let rig = try await ApplianceRig(displaySize: .twentyByFour)
        try await rig.schedule(Scene.alarm(6, 30))   // tomorrow: "①Tomorrow 06:30 " leaves 4 columns for the title
        #expect(await Self.wakeUps(of: rig, until: Scene.monday(7, 2, 30)) == 3)
        #expect(rig.lines[3] == "①Tomorrow 06:30 Wake")
    }

    // MARK: - Display

    @Test func theIconsAreLoadedAsCustomGlyphsAtStart() async throws {
        let rig = try await ApplianceRig()
        #expect(rig.display.glyphs == Dictionary(uniqueKeysWithValues: DisplayIcon.allCases.map { (Int($0.code), $0.glyph) }))
        #expect(rig.lines == ["     06:59      ", "   No alarms    "])
    }

    @Test func aDeadDisplayLeavesSoundAndLEDAlertingAndIsRedrawnWhenItAnswersAgain() async throws {
        let rig = try await ApplianceRig()
        try await rig.schedule(Scene.alarm(7, 0))
        let failure = HardwareError(.noAcknowledge, device: "/dev/i2c-1@0x27")
        rig.display.setUnavailable(failure)
        try await rig.advanceToNextDeadline()
        #expect(rig.audioLog.started == [.builtInTone])
        #expect(rig.indicator.pattern == Self.blink)
        #expect(await rig.appliance.displayFault == failure)

        var events = rig.display.events().makeAsyncIterator()
        rig.display.setUnavailable(nil)
        await rig.tap(.stop)
        var glyphs: [Int] = []
        while case .glyph(let slot, _) = await events.nextElement() { glyphs.append(slot) }
        #expect(glyphs == [0, 1, 2, 3])
        #expect(await rig.appliance.displayFault == nil)
        #expect(rig.lines == ["     07:00      ", "   No alarms    "])
        #expect(rig.display.isBacklightOn)
        #expect(rig.indicator.pattern == .off)
    }

    @Test func aDeadDisplayShowsOnTheLEDWhileIdleUntilItAnswersAgain() async throws {
        let rig = try await ApplianceRig()
        rig.display.setUnavailable(HardwareError(.noAcknowledge, device: "/dev/i2c-1@0x27"))
        await rig.advance(to: Scene.monday(7, 0))
        #expect(await rig.appliance.displayFault != nil)
        #expect(rig.indicator.pattern == Self.faultFlashes)
        rig.display.setUnavailable(nil)
        await rig.advance(to: Scene.monday(7, 0, 10))
        #expect(rig.lines == ["     07:00      ", "   No alarms    "])
        #expect(await rig.appliance.displayFault == nil)
        #expect(rig.indicator.pattern == .off)
    }

    @Test func aDisplayThatFailedAtTheAlertIsRedrawnWithoutAPress() async throws {
        let rig = try await ApplianceRig()
        try await rig.schedule(Scene.alarm(7, 0))
        rig.display.setUnavailable(HardwareError(.noAcknowledge, device: "/dev/i2c-1@0x27"))
        try await rig.advanceToNextDeadline()
        #expect(rig.lines == ["     06:59      ", "  ①Today 07:00  "])   // what it held when it stopped answering
        var events = rig.display.events().makeAsyncIterator()
        rig.display.setUnavailable(nil)
        #expect(await rig.appliance.nextWake == Scene.monday(7, 0, 10))
        await rig.advance(to: Scene.monday(7, 0, 10))
        var glyphs: [Int] = []
        while case .glyph(let slot, _) = await events.nextElement() { glyphs.append(slot) }
        #expect(glyphs == [0, 1, 2, 3])
        #expect(rig.lines == ["①Wake up   07:00", "Stop     ②Snooze"])
        #expect(rig.display.isBacklightOn)
    }
}
