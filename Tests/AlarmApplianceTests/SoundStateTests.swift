import AlarmHardware
import AlarmProtocol
import FoundationEssentials
import Testing

@testable import AlarmAppliance
@testable import AlarmEngine

@Suite struct SoundStateTests {
    let alarm = Scene.key(UUID())
    let other = Scene.key(UUID())

    @Test func aSilencedAlertKeepsWhetherItsNamedSoundFailed() {
        var state = SoundState.alert(alarm: alarm, source: .builtInTone, namedSoundFailed: true)
        #expect(state.playingAlarm == alarm)
        state.soundStopped()
        #expect(state == .alert(alarm: alarm, source: nil, namedSoundFailed: true))
        #expect(state.playingAlarm == nil)
        #expect(state.namedSoundFailed(for: alarm))
        #expect(!state.namedSoundFailed(for: other), "another alarm's alert tries its own sound")
    }

    @Test func aFailedFileIsRememberedForItsAlertOnly() {
        var state = SoundState.alert(alarm: alarm, source: .file("/s/birds.wav"), namedSoundFailed: false)
        state.soundStopped(namedSoundFailed: true)
        #expect(state.namedSoundFailed(for: alarm))
        #expect(state.source == nil)
        #expect(!SoundState.silent.namedSoundFailed(for: alarm))
    }

    @Test func onlyAQuietStateWaitsToPrepare() {
        let at = Date(timeIntervalSince1970: 1_000)
        var state = SoundState.quiet(prepared: nil, prepareAt: at)
        #expect(state.prepareAt == at)
        #expect(state.source == nil)
        state.soundStopped()
        #expect(state == .quiet(prepared: nil, prepareAt: at), "stopping changes nothing without an alert")
        #expect(SoundState.alert(alarm: alarm, source: nil, namedSoundFailed: false).prepareAt == nil)
    }
}
