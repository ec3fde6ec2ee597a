import CSndFile
import Glibc

/// Sound files made at test time with libsndfile's encoders, in every format alarmd plays.
public enum TestSoundFiles {
    public enum Format: String, CaseIterable, Sendable {
        case wav, flac, ogg, opus, mp3

        /// libsndfile's format code; Opus takes 48 kHz (and a few lower rates) only.
        var code: Int32 {
            switch self {
            case .wav: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
            case .flac: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
            case .ogg: Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
            case .opus: Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS)
            case .mp3: Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)
            }
        }

        /// Whether it decodes to exactly the samples written.
        public var isLossless: Bool { self == .wav || self == .flac }
    }

    /// A sine of `frequency` Hz at `amplitude` (of full scale), `seconds` long, the same on every
    /// channel: interleaved 16-bit samples.
    public static func sine(frequency: Double, amplitude: Double = 0.5, seconds: Double, rate: Int, channels: Int = 1) -> [Int16] {
        let frames = Int(seconds * Double(rate))
        var samples: [Int16] = []
        samples.reserveCapacity(frames * channels)
        for frame in 0..<frames {
            let value = Int16((sin(2 * .pi * frequency * Double(frame) / Double(rate)) * amplitude * 32_767).rounded())
            for _ in 0..<channels { samples.append(value) }
        }
        return samples
    }

    /// Writes `samples` (interleaved, `channels` to a frame) to `path` as `format`.
    public static func write(_ samples: [Int16], to path: String, as format: Format, rate: Int, channels: Int = 1) throws {
        var info = SF_INFO()
        info.samplerate = Int32(rate)
        info.channels = Int32(channels)
        info.format = format.code
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw TestSoundFileError(description: "\(path): libsndfile cannot write \(format): \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(file) }
        let frames = samples.count / channels
        let written = samples.withUnsafeBufferPointer { sf_writef_short(file, $0.baseAddress, sf_count_t(frames)) }
        guard written == frames else {
            throw TestSoundFileError(description: "\(path): wrote \(written) of \(frames) frames: \(String(cString: sf_strerror(file)))")
        }
    }
}

public struct TestSoundFileError: Error, CustomStringConvertible {
    public var description: String
}
