import AlarmHardware
import Synchronization

extension ALSAMixerVolume: HardwareVolume {}

/// Plays through `output` with each sound's target volume set on the card's own control, so the
/// volume the household chose (on the phone page, or the configuration's) is the card's volume,
/// whenever it was chosen, and the samples reach the card at full scale.
///
/// ```swift
/// let mixer = ALSAMixerVolume(card: "hw:CARD=Headphones", control: "PCM")
/// let audio = HardwareVolumeAudioOutput(wrapping: alsa, volume: mixer) { problem in log(problem) }
/// try await audio.play(.builtInTone, gain: GainRamp(from: -36, to: -20, over: .seconds(30)), looping: true)
/// // the card's PCM control is at -20 dB; the software crescendo rises from -16 dB to 0 dB
/// ```
///
/// A target below the control's range sets its minimum and leaves the rest to the software gain.
/// A control that cannot be set (the card is gone, or the name is wrong) leaves the whole gain in
/// software and is tried again at the next sound: the alarm rings either way. `changes` hears the
/// error when the control starts failing and `nil` when it works again, once each. The control is
/// set at every sound, even to the value it had: anything else on the machine (`alsamixer`, a
/// self-test) may have moved it since, and a sleeper must not be woken at someone else's volume.
public final class HardwareVolumeAudioOutput: AudioOutput {
    private let output: any AudioOutput
    private let volume: any HardwareVolume
    private let changes: @Sendable (HardwareError?) -> Void
    private let state = Mutex(State())

    private struct State {
        /// The control's range, read at the first sound (again after a failure: the card may
        /// have been replaced).
        var range: ClosedRange<Double>?
        var failing = false
    }

    public init(
        wrapping output: any AudioOutput, volume: any HardwareVolume, changes: @escaping @Sendable (HardwareError?) -> Void
    ) {
        self.output = output
        self.volume = volume
        self.changes = changes
    }

    /// Sets the card to `gain`'s target (within its range) and plays the rest of `gain` in software.
    public func play(_ source: SoundSource, gain: GainRamp, looping: Bool) async throws {
        let onCard = applyOnCard(gain.target)
        let software = GainRamp(from: gain.start - onCard, to: gain.target - onCard, over: gain.duration)
        try await output.play(source, gain: software, looping: looping)
    }

    /// Sets the card to `decibels` (within its range) now, before any sound: a person looking at
    /// the mixer sees the alarm volume. A failure is reported to `changes` as at a sound.
    public func setCard(to decibels: Double) {
        _ = applyOnCard(decibels)
    }

    public func prepare(_ source: SoundSource, for duration: Duration) async {
        await output.prepare(source, for: duration)
    }

    public func stop() async {
        await output.stop()
    }

    public func failures() -> AsyncStream<HardwareError> {
        output.failures()
    }

    /// The dB now set on the card for `target`: the target within the control's range, or 0 when
    /// the control cannot be set (the card then plays at its unity gain as far as alarmd knows).
    private func applyOnCard(_ target: Double) -> Double {
        let known = state.withLock { $0 }
        do throws(HardwareError) {
            let range: ClosedRange<Double>
            if let knownRange = known.range { range = knownRange } else { range = try volume.range() }
            let onCard = min(max(target, range.lowerBound), range.upperBound)
            try volume.set(decibels: onCard)
            let recovered = state.withLock { state in
                defer { state = State(range: range, failing: false) }
                return state.failing
            }
            if recovered { changes(nil) }
            return onCard
        } catch {
            let first = state.withLock { state in
                defer { state = State(range: nil, failing: true) }
                return !state.failing
            }
            if first { changes(error) }
            return 0
        }
    }
}
