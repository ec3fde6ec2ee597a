import AlarmAppliance
import AlarmHardware
import AlarmKitCore
import AlarmSimulator
import FoundationEssentials
import Testing

/// The sound is made ready shortly before an alert (``ApplianceSettings/soundPreparationLead``),
/// so the alert is heard at its instant.
@Suite struct SoundPreparationTests {
    @Test func anAlarmsNamedSoundIsPreparedTwoSecondsAheadOnce() async throws {
        var settings = ApplianceSettings()
        settings.soundsDirectory = "/opt/alarmd/sounds"
        let rig = try await ApplianceRig(settings: settings)
        try await rig.schedule(Scene.alarm(7, 0, sound: .named("birds.wav")))
        #expect(await rig.appliance.nextWake == Scene.monday(6, 59, 58))
        await rig.advance(to: Scene.monday(6, 59, 57))
        #expect(rig.audio.preparations.isEmpty, "not before the lead")

        await rig.advance(to: Scene.monday(6, 59, 58.5))
        #expect(rig.audio.preparations.map(\.source) == [.file("/opt/alarmd/sounds/birds.wav")])
        #expect(rig.audio.preparations.map(\.duration) == [.milliseconds(3_500)])
        await rig.advance(to: Scene.monday(6, 59, 59))
        #expect(rig.audio.preparations.count == 1, "once per alert")
        #expect(rig.audio.nowPlaying == nil, "a preparation never sounds")

        try await rig.advanceToNextDeadline()
        #expect(rig.audioLog.started == [.file("/opt/alarmd/sounds/birds.wav")])
    }

    @Test func theSnoozeEndIsPreparedForAndNothingWhileItRings() async throws {
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.alarm(7, 0))
        try await rig.advanceToNextDeadline()
        #expect(await rig.state(of: id) == .alerting)
        let preparedBefore = rig.audio.preparations.count
        await rig.advance(by: 30)
        #expect(rig.audio.preparations.count == preparedBefore, "nothing is prepared while an alert rings")

        await rig.tap(.snooze)
        #expect(await rig.state(of: id) == .countdown)
        let snoozeEnd = try #require(await rig.runtime.nextDeadline)
        await rig.advance(to: snoozeEnd.addingTimeInterval(-2.5))
        #expect(rig.audio.preparations.count == preparedBefore)
        await rig.advance(to: snoozeEnd.addingTimeInterval(-2))
        #expect(rig.audio.preparations.last?.source == .builtInTone)
        #expect(rig.audio.preparations.count == preparedBefore + 1)
    }

    @Test func aTimerIsPreparedForBeforeItEnds() async throws {
        let rig = try await ApplianceRig()
        try await rig.schedule(Scene.timer(60))
        await rig.advance(by: 57)
        #expect(rig.audio.preparations.isEmpty)
        await rig.advance(by: 1)
        #expect(rig.audio.preparations.map(\.source) == [.builtInTone])
    }

    @Test func aZeroLeadPreparesNothing() async throws {
        var settings = ApplianceSettings()
        settings.soundPreparationLead = .zero
        let rig = try await ApplianceRig(settings: settings)
        try await rig.schedule(Scene.alarm(7, 0))
        await rig.advance(to: Scene.monday(6, 59, 59))
        try await rig.advanceToNextDeadline()
        #expect(rig.audio.preparations.isEmpty)
        #expect(rig.audioLog.started == [.builtInTone])
    }
}
