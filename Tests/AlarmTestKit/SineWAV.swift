import Glibc

/// A PCM WAV file of sines, one per channel, for tests and benchmarks that play files.
public enum SineWAV {
    /// The bytes of a `seconds`-long file at `sampleRate`, `bits` (16 or 24) per sample, each
    /// channel a sine of the given frequency and peak (a fraction of full scale).
    public static func bytes(
        sampleRate: Int, bits: Int, seconds: Double, channels: [(frequency: Double, peak: Double)]
    ) -> [UInt8] {
        let frames = Int((seconds * Double(sampleRate)).rounded())
        let width = bits / 8
        let scale = Double((1 << (bits - 1)) - 1)
        var data: [UInt8] = []
        data.reserveCapacity(frames * channels.count * width)
        for frame in 0..<frames {
            for channel in channels {
                let value = sin(2 * Double.pi * channel.frequency * Double(frame) / Double(sampleRate)) * channel.peak
                let sample = UInt32(bitPattern: Int32((value * scale).rounded()))
                for byte in 0..<width { data.append(UInt8(truncatingIfNeeded: sample >> (8 * byte))) }
            }
        }
        func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let blockAlign = channels.count * width
        var file = Array("RIFF".utf8) + le(36 + data.count, 4) + Array("WAVEfmt ".utf8) + le(16, 4)
        file += le(1, 2) + le(channels.count, 2) + le(sampleRate, 4) + le(sampleRate * blockAlign, 4)
        file += le(blockAlign, 2) + le(bits, 2) + Array("data".utf8) + le(data.count, 4) + data
        return file
    }
}
