import AlarmHardware
import Synchronization

/// A sound card's volume control in memory: its range, what was set, and a failure knob.
///
/// ```swift
/// let card = FakeHardwareVolume(range: -40...4)
/// let audio = HardwareVolumeAudioOutput(wrapping: FakeAudioOutput(), volume: card) { _ in }
/// try await audio.play(.builtInTone, gain: GainRamp(from: -30, to: -12, over: .seconds(30)), looping: true)
/// #expect(card.settings == [-12])
/// ```
public final class FakeHardwareVolume: HardwareVolume {
    private struct State {
        var settings: [Double] = []
        var failure: HardwareError?
    }

    private let state = Mutex(State())
    public let settableRange: ClosedRange<Double>

    public init(range: ClosedRange<Double> = -102...4) {
        settableRange = range
    }

    /// Every value set, oldest first.
    public var settings: [Double] { state.withLock { $0.settings } }

    public func fail(with error: HardwareError?) {
        state.withLock { $0.failure = error }
    }

    public func range() throws(HardwareError) -> ClosedRange<Double> {
        if let failure = state.withLock({ $0.failure }) { throw failure }
        return settableRange
    }

    public func set(decibels: Double) throws(HardwareError) {
        try state.withLock { state throws(HardwareError) in
            if let failure = state.failure { throw failure }
            state.settings.append(decibels)
        }
    }
}
