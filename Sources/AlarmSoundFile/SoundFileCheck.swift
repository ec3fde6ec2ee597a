/// What a sound must pass when it is chosen (scheduled by name, uploaded, made the default), so
/// that a file that cannot ring is refused then, with the reason, not found out at the alarm.
public struct SoundFileSummary: Hashable, Sendable {
    public var format: String
    public var sampleRate: Int
    public var channels: Int
    /// Its length in seconds, as its header says (an estimate for MP3), if it says.
    public var seconds: Double?

    public init(format: String, sampleRate: Int, channels: Int, seconds: Double?) {
        self.format = format
        self.sampleRate = sampleRate
        self.channels = channels
        self.seconds = seconds
    }
}

extension SoundFileReader {
    /// The rates and channel counts a playback takes: what ALSA's `plughw` and `default` devices
    /// convert from, and what an alarm sound is (mono or stereo).
    public static let sampleRates = 8_000...192_000
    public static let channelCounts = 1...2

    /// The file name extensions of the formats people have, which the sounds list offers (any
    /// file libsndfile decodes plays, whatever its name).
    public static let fileExtensions = ["wav", "flac", "ogg", "oga", "opus", "mp3"]

    /// How much of a chosen sound is decoded to check it: its opening, which is what wakes, and
    /// enough to meet a file damaged after its header. A fault later in a long file is met while
    /// it plays, and the alarm falls back to the built-in tone.
    public static let checkedSeconds = 10

    /// Throws unless the file is mono or stereo at a rate a playback takes.
    public func requireAlarmSoundShape() throws(SoundFileError) {
        guard Self.channelCounts.contains(channels) else {
            throw SoundFileError(path: path, reason: "has \(channels) channels; an alarm sound is mono or stereo")
        }
        guard Self.sampleRates.contains(sampleRate) else {
            throw SoundFileError(path: path, reason: "is sampled at \(sampleRate) Hz; from 8 to 192 kHz plays")
        }
    }

    /// Opens `path` and decodes its opening: a sound an alarm can ring with, or why not.
    public static func check(_ path: String) throws(SoundFileError) -> SoundFileSummary {
        let reader = try SoundFileReader(path: path)
        try reader.requireAlarmSoundShape()
        let chunk = 4_096
        var buffer = [Int16](repeating: 0, count: chunk * reader.channels)
        var decoded = 0
        while decoded < checkedSeconds * reader.sampleRate {
            let got = try reader.read(into: &buffer, frames: chunk)
            if got == 0 { break }
            decoded += got
        }
        guard decoded > 0 else { throw SoundFileError(path: path, reason: "holds no sound (no frames decode)") }
        return SoundFileSummary(
            format: reader.format, sampleRate: reader.sampleRate, channels: reader.channels,
            seconds: reader.frames.map { Double($0) / Double(reader.sampleRate) })
    }
}
