import AlarmHardware

/// A sound held whole in memory: interleaved signed 16-bit frames at a rate. The built-in tone;
/// sound files are decoded as they play (``FileFeed``).
struct PCMSound: Sendable {
    var samples: [Int16]
    var channels: Int
    var sampleRate: Int

    var frameCount: Int { samples.count / channels }

    /// The built-in tone, generated at `sampleRate` so it is never resampled.
    static func builtInTone(sampleRate: Int) -> PCMSound {
        PCMSound(samples: AlarmTone(sampleRate: sampleRate).loop(), channels: 1, sampleRate: sampleRate)
    }
}
