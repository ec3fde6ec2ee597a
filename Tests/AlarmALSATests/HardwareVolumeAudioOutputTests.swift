import AlarmALSA
import AlarmHardware
import AlarmSimulator
import Synchronization
import Testing

/// What the output reported about its control, oldest first (`nil`: it works again).
final class ControlChanges: Sendable {
    private let entries = Mutex<[HardwareError?]>([])
    var all: [HardwareError?] { entries.withLock { $0 } }
    func record(_ change: HardwareError?) { entries.withLock { $0.append(change) } }
}

@Suite struct HardwareVolumeAudioOutputTests {
    let software = FakeAudioOutput()
    let card = FakeHardwareVolume()
    let changes = ControlChanges()

    func output() -> HardwareVolumeAudioOutput {
        HardwareVolumeAudioOutput(wrapping: software, volume: card) { [changes] change in changes.record(change) }
    }

    /// The household's volume, whenever it was chosen, is the card's; the crescendo plays below it.
    @Test func eachSoundSetsTheCardToItsTargetAndRampsTheRestInSoftware() async throws {
        let audio = output()
        try await audio.play(.builtInTone, gain: GainRamp(from: -36, to: -20, over: .seconds(30)), looping: true)
        #expect(card.settings == [-20])
        #expect(software.nowPlaying?.gain == GainRamp(from: -16, to: 0, over: .seconds(30)))

        // The page changes the volume later: the next sound moves the card, not the software gain.
        try await audio.play(.builtInTone, gain: .constant(-9), looping: false)
        #expect(card.settings == [-20, -9])
        #expect(software.nowPlaying?.gain == .constant(0))
        #expect(changes.all.isEmpty)
    }

    /// Something else may have moved the control since the last sound (`alsamixer`, a self-test).
    @Test func theCardIsSetAtEverySoundEvenToTheSameVolume() async throws {
        let audio = output()
        for _ in 0..<3 {
            try await audio.play(.builtInTone, gain: GainRamp(from: -30, to: -12, over: .seconds(5)), looping: true)
            await audio.stop()
        }
        #expect(card.settings == [-12, -12, -12])
    }

    @Test func aTargetBelowTheControlsRangeLeavesTheRestToSoftware() async throws {
        let narrow = FakeHardwareVolume(range: -30...0)
        let audio = HardwareVolumeAudioOutput(wrapping: software, volume: narrow) { _ in }
        try await audio.play(.builtInTone, gain: GainRamp(from: -50, to: -45, over: .seconds(10)), looping: true)
        #expect(narrow.settings == [-30])
        #expect(software.nowPlaying?.gain == GainRamp(from: -20, to: -15, over: .seconds(10)))
    }

    /// The alarm rings either way; the change is reported once each way.
    @Test func aControlThatCannotBeSetLeavesTheWholeGainInSoftwareUntilItCan() async throws {
        let audio = output()
        let gone = HardwareError(.deviceUnavailable, device: "hw:CARD=Headphones mixer PCM")
        card.fail(with: gone)
        let ramp = GainRamp(from: -36, to: -20, over: .seconds(30))
        try await audio.play(.builtInTone, gain: ramp, looping: true)
        try await audio.play(.builtInTone, gain: ramp, looping: true)
        #expect(software.nowPlaying?.gain == ramp)
        #expect(changes.all == [gone])

        card.fail(with: nil)
        try await audio.play(.builtInTone, gain: ramp, looping: true)
        #expect(card.settings == [-20])
        #expect(software.nowPlaying?.gain == GainRamp(from: -16, to: 0, over: .seconds(30)))
        #expect(changes.all == [gone, nil])
    }

    @Test func prepareAndStopReachTheCardsOutput() async throws {
        let audio = output()
        await audio.prepare(.builtInTone, for: .seconds(2))
        #expect(software.preparations.map(\.source) == [.builtInTone])
        try await audio.play(.builtInTone, gain: .constant(-6), looping: true)
        await audio.stop()
        #expect(software.nowPlaying == nil)
    }
}
