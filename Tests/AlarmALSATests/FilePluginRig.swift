@testable import AlarmALSA
import AlarmHardware
import AlarmSoundFile
import AlarmTestKit
import Glibc
import Synchronization
import Testing

/// An ``ALSAAudioOutput`` on ALSA's `file` plugin over a `null` slave, from a private
/// configuration: what it plays lands in a WAV file through the real libasound path, with no
/// sound card and no process-wide environment.
final class FilePluginRig: Sendable {
    static let deviceName = "alarmtest"

    let directory: TemporaryDirectory
    let recordingPath: String
    let output: ALSAAudioOutput
    /// Where ``output`` opens its devices: alsa-lib, watched.
    let pcm: WatchedPCMOpener
    private let lines = DiagnosticLines()

    /// - Parameters:
    ///   - rate, channels: What the plug layer must convert to before the file; `nil` passes the
    ///     output's own through.
    ///   - failure: Makes the device fail its writes, as a card that goes away does.
    init(
        rate: Int? = nil, channels: Int? = nil, device: String = deviceName,
        failure: WatchedPCMOpener.WriteFailure? = nil
    ) throws {
        directory = try TemporaryDirectory()
        recordingPath = directory.path + "/recorded.wav"
        var slave = """
            pcm {
                type file
                file "\(recordingPath)"
                format "wav"
                slave.pcm { type null }
            }
            format S16_LE
            """
        if let rate { slave += "\nrate \(rate)" }
        if let channels { slave += "\nchannels \(channels)" }
        let configuration = "pcm.\(Self.deviceName) {\n type plug\n slave {\n\(slave)\n }\n}\n"
        let lines = self.lines
        pcm = WatchedPCMOpener(failure: failure)
        output = ALSAAudioOutput(
            device: device, configuration: configuration, diagnostics: { line in lines.append(line) }, pcm: pcm)
    }

    /// What the diagnostics sink received so far.
    var diagnostics: [String] { lines.all }

    /// The recording, once the output has closed the device (the file plugin writes the WAV
    /// header's lengths on close).
    func recording() throws -> Recording {
        let reader = try SoundFileReader(path: recordingPath)
        var samples: [Int16] = []
        var buffer = [Int16](repeating: 0, count: 4_096 * reader.channels)
        while true {
            let got = try reader.read(into: &buffer, frames: 4_096)
            if got == 0 { break }
            samples += buffer[0..<(got * reader.channels)]
        }
        return Recording(sampleRate: reader.sampleRate, channels: reader.channels, samples: samples)
    }

    /// The recording's size in bytes so far; 0 before it exists.
    var recordedBytes: Int {
        var status = stat()
        return stat(recordingPath, &status) == 0 ? Int(status.st_size) : 0
    }

    /// Writes a WAV file of sines (see ``SineWAV``) into the rig's directory; returns its path.
    func writeSineWAV(
        named name: String, sampleRate: Int, bits: Int, seconds: Double, channels: [(frequency: Double, peak: Double)]
    ) throws -> String {
        let file = SineWAV.bytes(sampleRate: sampleRate, bits: bits, seconds: seconds, channels: channels)
        let path = directory.path + "/" + name
        try TestFiles.write(file, to: path)
        return path
    }
}

/// What the file plugin recorded: interleaved 16-bit frames.
struct Recording {
    var sampleRate: Int
    var channels: Int
    var samples: [Int16]

    var frameCount: Int { samples.count / channels }
}

/// What a diagnostics sink received.
final class DiagnosticLines: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

extension Signal {
    /// One channel of `wav` as fractions of full scale.
    static func channel(_ channel: Int, of wav: Recording) -> [Double] {
        fractions(wav.samples, channel: channel, of: wav.channels)
    }
}

