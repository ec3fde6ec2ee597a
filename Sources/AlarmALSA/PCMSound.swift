import AlarmHardware
import AlarmTime
import LinuxSupport

/// A sound ready to play: interleaved signed 16-bit frames at a rate.
struct PCMSound: Sendable {
    var samples: [Int16]
    var channels: Int
    var sampleRate: Int

    var frameCount: Int { samples.count / channels }

    /// The built-in tone, generated at `sampleRate` so it is never resampled.
    static func builtInTone(sampleRate: Int) -> PCMSound {
        PCMSound(samples: AlarmTone(sampleRate: sampleRate).loop(), channels: 1, sampleRate: sampleRate)
    }

    /// An alarm sound is seconds long; a file far larger is refused rather than read into memory.
    static let maximumFileSize = 64 << 20

    /// Reads and decodes the WAV file at `path`.
    /// - Throws: ``HardwareError`` `.io` with `device` set to `path`: with the `errno` when the
    ///   file cannot be read (`ENOENT`, `EACCES`, `EISDIR`, `EFBIG` above ``maximumFileSize``);
    ///   without one when it is not a WAV file this reader plays (`why` says what is wrong).
    static func file(_ path: String, why: (String) -> Void) throws(HardwareError) -> PCMSound {
        let bytes: [UInt8]
        switch SystemFile.read(path, maximumSize: maximumFileSize) {
        case .success(let contents): bytes = contents
        case .failure(let failure):
            let code = failure.code
            why("\(path): cannot be read (errno \(code))")
            throw HardwareError(.io, device: path, errno: code)
        }
        let wav: WAVFile
        do {
            wav = try WAVFile(bytes: bytes)
        } catch {
            why("\(path): \(error)")
            throw HardwareError(.io, device: path)
        }
        guard wav.frameCount > 0 else {
            why("\(path): the file holds no samples")
            throw HardwareError(.io, device: path)
        }
        return PCMSound(samples: wav.samples, channels: wav.channels, sampleRate: wav.sampleRate)
    }
}
