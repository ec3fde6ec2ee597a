import AlarmHardware
import AlarmSoundFile

/// Where a playback's frames come from: the built-in tone in memory, or a sound file decoded as
/// it plays. Lives on the writer thread.
protocol SampleFeed: AnyObject {
    var channels: Int { get }
    var sampleRate: Int { get }
    /// Whether the sound starts again at its end. Known only once the playback is claimed.
    var looping: Bool { get set }
    /// Whether a sound that does not loop has given its last frame.
    var isExhausted: Bool { get }
    /// Up to `frames` interleaved frames from the current position, without consuming them:
    /// fewer at the end of a sound, or at the loop point of one in memory.
    /// - Throws: ``SoundFileError`` when a file's data cannot be decoded.
    func peek(frames: Int) throws(SoundFileError) -> ArraySlice<Int16>
    /// Consumes `frames` frames that the device took.
    func consume(frames: Int)
}

/// A sound held whole in memory: the built-in tone.
final class MemoryFeed: SampleFeed {
    let sound: PCMSound
    var looping = false
    private var position = 0

    init(_ sound: PCMSound) {
        self.sound = sound
    }

    var channels: Int { sound.channels }
    var sampleRate: Int { sound.sampleRate }
    var isExhausted: Bool { !looping && position >= sound.frameCount }

    func peek(frames: Int) -> ArraySlice<Int16> {
        if position >= sound.frameCount {
            guard looping, sound.frameCount > 0 else { return [] }
            position = 0
        }
        let count = min(frames, sound.frameCount - position)
        return sound.samples[(position * channels)..<((position + count) * channels)]
    }

    func consume(frames: Int) {
        position += frames
    }
}

/// A sound file decoded a little ahead of the device: its opening when the playback is prepared
/// (before the alarm's instant, so the first period needs no decoding), then a period's worth
/// before each write. What it holds is the decoded frames not yet played, never the file.
final class FileFeed: SampleFeed {
    let reader: SoundFileReader
    var looping = false {
        didSet { if looping { atEnd = false } }
    }
    private var decoded: [Int16] = []
    /// Where the frames not yet consumed begin in ``decoded``.
    private var start = 0
    private var atEnd = false
    /// Whether a frame was decoded since the last rewind: a file that gives none is not rewound forever.
    private var decodedSinceRewind = false
    private var scratch: [Int16]

    /// How many frames are decoded in one read: a little over a period at 48 kHz.
    static let decodeFrames = 1_024

    /// Opens nothing: `reader` is open. Decodes `ahead` frames now.
    init(_ reader: SoundFileReader, decodingAhead ahead: Int) throws(SoundFileError) {
        self.reader = reader
        scratch = [Int16](repeating: 0, count: Self.decodeFrames * reader.channels)
        try fill(ahead)
        guard !decoded.isEmpty else { throw SoundFileError(path: reader.path, reason: "holds no sound (no frames decode)") }
    }

    var channels: Int { reader.channels }
    var sampleRate: Int { reader.sampleRate }
    var isExhausted: Bool { atEnd && start >= decoded.count }
    private var available: Int { (decoded.count - start) / channels }

    func peek(frames: Int) throws(SoundFileError) -> ArraySlice<Int16> {
        try fill(frames)
        let count = min(frames, available)
        return decoded[start..<(start + count * channels)]
    }

    func consume(frames: Int) {
        start = min(start + frames * channels, decoded.count)
    }

    /// Decodes until `frames` frames are ready or the sound ends; at the end of a looping sound,
    /// from its start again.
    private func fill(_ frames: Int) throws(SoundFileError) {
        while available < frames, !atEnd {
            if start > 0, start * 2 >= decoded.count {
                decoded.removeFirst(start)
                start = 0
            }
            let got = try reader.read(into: &scratch, frames: Self.decodeFrames)
            if got > 0 {
                decoded += scratch[0..<(got * channels)]
                decodedSinceRewind = true
            } else if looping, decodedSinceRewind {
                try reader.rewind()
                decodedSinceRewind = false
            } else {
                atEnd = true
            }
        }
    }
}
