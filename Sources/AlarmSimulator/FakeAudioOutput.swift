import AlarmHardware
import AlarmTime
import Synchronization

/// An audio output that remembers what it plays, with knobs for the failures a real one has.
public final class FakeAudioOutput: AudioOutput, FakePart, Sendable {
    public enum Event: Hashable, Sendable {
        case started(SoundSource, gain: GainRamp, looping: Bool)
        case stopped
        /// A play that could not start.
        case refused(SoundSource, HardwareError)
        /// Playback that ended by a fault.
        case failed(HardwareError)
    }

    public struct Playback: Hashable, Sendable {
        public var source: SoundSource
        public var gain: GainRamp
        public var looping: Bool
        /// The monotonic time playback began, on the clock given at init (zero without one).
        public var startedAt: Duration

        public func decibels(at now: Duration) -> Double {
            gain.decibels(after: now - startedAt)
        }
    }

    /// A ``prepare(_:for:)`` call: what for, for how long, and when (monotonic, on the clock
    /// given at init; zero without one).
    public struct Preparation: Hashable, Sendable {
        public var source: SoundSource
        public var duration: Duration
        public var at: Duration
    }

    private struct State {
        var preparations: [Preparation] = []
        var nowPlaying: Playback?
        var nextFailure: HardwareError?
        var unavailable: HardwareError?
    }

    private let state = Mutex(State())
    private let feed = EventFeed<Event>()
    private let faults = EventFeed<HardwareError>()
    private let clock: (any WallClock)?

    /// `clock` stamps when each playback began, so the gain playing now can be told.
    public init(clock: (any WallClock)? = nil) {
        self.clock = clock
    }

    public var nowPlaying: Playback? { state.withLock { $0.nowPlaying } }

    /// Oldest first.
    public var preparations: [Preparation] { state.withLock { $0.preparations } }

    public func events() -> AsyncStream<Event> { feed.subscribe() }

    public func failNextPlay(with error: HardwareError) {
        state.withLock { $0.nextFailure = error }
    }

    /// Makes every play fail with `error` until called with `nil` (no working output at all).
    public func setUnavailable(_ error: HardwareError?) {
        state.withLock { $0.unavailable = error }
    }

    /// Ends the current playback with a fault, as when the device disappears mid-alert.
    public func failWhilePlaying(with error: HardwareError) {
        guard endPlayback() else { return }
        feed.send(.failed(error))
        faults.send(error)
    }

    public func play(_ source: SoundSource, gain: GainRamp, looping: Bool) async throws {
        let startedAt = clock?.monotonicNow ?? .zero
        let failure = state.withLock { state -> HardwareError? in
            if let failure = state.unavailable ?? state.nextFailure {
                state.nextFailure = nil
                return failure
            }
            state.nowPlaying = Playback(source: source, gain: gain, looping: looping, startedAt: startedAt)
            return nil
        }
        if let failure {
            feed.send(.refused(source, failure))
            throw failure
        }
        feed.send(.started(source, gain: gain, looping: looping))
    }

    /// Records the call; nothing is opened, so a play afterwards behaves as without it.
    public func prepare(_ source: SoundSource, for duration: Duration) async {
        let at = clock?.monotonicNow ?? .zero
        state.withLock { $0.preparations.append(Preparation(source: source, duration: duration, at: at)) }
    }

    public func stop() async {
        if endPlayback() { feed.send(.stopped) }
    }

    /// Forgets the playback; returns whether there was one.
    private func endPlayback() -> Bool {
        state.withLock { state in
            defer { state.nowPlaying = nil }
            return state.nowPlaying != nil
        }
    }

    public func failures() -> AsyncStream<HardwareError> { faults.subscribe() }

    /// A failure armed by ``failNextPlay(with:)`` that no play took.
    public func leftovers() -> [String] {
        state.withLock { $0.nextFailure }.map { ["failNextPlay(\($0)) was armed but nothing played"] } ?? []
    }
}
