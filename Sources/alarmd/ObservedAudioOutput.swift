import AlarmHardware
import AlarmTime
import Synchronization

/// An audio output that remembers what it plays, for the simulator's screen, and passes playback
/// on to a real output (ALSA) when there is one. Without one it is silent but plays "successfully",
/// so the appliance behaves as on a board with a working speaker and the screen says it is silent.
final class ObservedAudioOutput: AudioOutput, Sendable {
    struct Playback: Sendable {
        var source: SoundSource
        var gain: GainRamp
        var startedAt: Duration
    }

    enum Status: Sendable {
        case idle
        case playing(Playback)
        case failed(HardwareError)
    }

    private let output: (any AudioOutput)?
    private let clock: any WallClock
    private let state = Mutex<Status>(.idle)

    /// `output` nil: no sound device; everything "plays" in silence.
    init(output: (any AudioOutput)?, clock: any WallClock) {
        self.output = output
        self.clock = clock
    }

    var hasDevice: Bool { output != nil }
    var status: Status { state.withLock { $0 } }

    func play(_ source: SoundSource, gain: GainRamp, looping: Bool) async throws {
        do {
            try await output?.play(source, gain: gain, looping: looping)
        } catch let error as HardwareError {
            state.withLock { $0 = .failed(error) }
            throw error
        }
        let startedAt = clock.monotonicNow
        state.withLock { $0 = .playing(Playback(source: source, gain: gain, startedAt: startedAt)) }
    }

    func prepare(_ source: SoundSource, for duration: Duration) async {
        await output?.prepare(source, for: duration)
    }

    func stop() async {
        await output?.stop()
        state.withLock { $0 = .idle }
    }

    func failures() -> AsyncStream<HardwareError> {
        guard let output else { return AsyncStream { $0.finish() } }
        let upstream = output.failures()
        return AsyncStream { continuation in
            let task = Task { [self] in
                for await failure in upstream {
                    state.withLock { $0 = .failed(failure) }
                    continuation.yield(failure)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
