import Glibc

/// What an alert plays.
public enum SoundSource: Hashable, Sendable {
    /// The built-in alarm tone, generated in code: it needs no file and cannot be missing.
    case builtInTone
    /// A sound file by absolute path: WAV, FLAC, Ogg Vorbis, Opus or MP3, mono or stereo,
    /// 8 to 192 kHz (decoded as it plays by libsndfile on a board).
    case file(String)
}

/// How loud a sound plays: a crescendo from `start` to `target` over `duration`, in decibels
/// relative to full scale (0 dB is full scale; -60 dB is nearly silent). A ramp in dB sounds even
/// to the ear; a linear ramp would jump at first and then seem to stall.
public struct GainRamp: Hashable, Sendable {
    public var start: Double
    public var target: Double
    public var duration: Duration

    public init(from start: Double, to target: Double, over duration: Duration) {
        self.start = start
        self.target = target
        self.duration = duration
    }

    public static func constant(_ decibels: Double) -> GainRamp {
        GainRamp(from: decibels, to: decibels, over: .zero)
    }

    /// The gain in dB `elapsed` into the ramp.
    public func decibels(after elapsed: Duration) -> Double {
        guard duration > .zero, elapsed < duration else { return target }
        guard elapsed > .zero else { return start }
        let fraction = elapsed / duration
        return start + (target - start) * fraction
    }

    /// The linear amplitude factor.
    public static func amplitude(decibels: Double) -> Double {
        pow(10, decibels / 20)
    }
}

/// Plays alarm sounds. Backends: `ALSAAudioOutput`, ``FakeAudioOutput`` in `AlarmSimulator`.
public protocol AudioOutput: Sendable {
    /// Starts `source`, replacing anything playing, with `gain` applied from its start. Returns
    /// once playback has begun.
    /// - Throws: ``HardwareError`` if it cannot start (no device, busy, unreadable file).
    func play(_ source: SoundSource, gain: GainRamp, looping: Bool) async throws
    /// Gets ready to play `source` within `duration`: whatever makes the first sound late (loading
    /// the sound, opening and configuring the device) is done now, before an alert is due. A
    /// `play` of the same source then starts at once; without one, what was opened is released
    /// after `duration`. Never throws and never sounds: a problem is left for the `play` to meet.
    func prepare(_ source: SoundSource, for duration: Duration) async
    /// Stops playback at once. Never throws: stopping something silent is not an error.
    func stop() async
    /// A new stream of failures that end playback after it began (the device disappeared).
    func failures() -> AsyncStream<HardwareError>
}
