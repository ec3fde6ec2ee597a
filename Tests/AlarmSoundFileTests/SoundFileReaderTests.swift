import AlarmSoundFile
import AlarmTestKit
import Glibc
import Testing

/// Every format people have decodes to the sound that was written; what cannot ring is refused
/// with the reason.
@Suite struct SoundFileReaderTests {
    /// Reads every frame of `path`, a chunk at a time, as a playback does.
    static func decodeAll(_ path: String, chunk: Int = 1_000) throws -> (reader: SoundFileReader, samples: [Int16]) {
        let reader = try SoundFileReader(path: path)
        var samples: [Int16] = []
        var buffer = [Int16](repeating: 0, count: chunk * reader.channels)
        while true {
            let got = try reader.read(into: &buffer, frames: chunk)
            if got == 0 { break }
            samples += buffer[0..<(got * reader.channels)]
        }
        return (reader, samples)
    }

    @Test(arguments: TestSoundFiles.Format.allCases)
    func eachFormatDecodesToTheSoundWritten(_ format: TestSoundFiles.Format) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/tone.\(format.rawValue)"
        let written = TestSoundFiles.sine(frequency: 1_000, seconds: 1, rate: 48_000)
        try TestSoundFiles.write(written, to: path, as: format, rate: 48_000)

        let (reader, samples) = try Self.decodeAll(path)
        #expect(reader.sampleRate == 48_000)
        #expect(reader.channels == 1)
        if format.isLossless {
            #expect(samples == written)
        } else {
            // Lossy: the same tone at the same level, about a second (encoders pad the ends).
            #expect(abs(samples.count - written.count) < 4_800, "\(samples.count) frames")
            let level = Signal.fractions(samples), middle = (samples.count / 4)..<(samples.count * 3 / 4)
            #expect(abs(Signal.frequency(level, in: middle, sampleRate: 48_000) - 1_000) < 5)
            #expect(abs(Signal.decibels(level, in: middle) - 20 * log10(0.5 / 2.0.squareRoot())) < 1)
        }
    }

    @Test func formatsAreNamedAndStereoStaysStereo() throws {
        let directory = try TemporaryDirectory()
        let flac = directory.path + "/stereo.flac", mp3 = directory.path + "/tone.mp3"
        try TestSoundFiles.write(
            TestSoundFiles.sine(frequency: 440, seconds: 0.5, rate: 44_100, channels: 2), to: flac, as: .flac, rate: 44_100, channels: 2)
        try TestSoundFiles.write(TestSoundFiles.sine(frequency: 440, seconds: 0.5, rate: 44_100), to: mp3, as: .mp3, rate: 44_100)
        let stereo = try SoundFileReader.check(flac)
        #expect(stereo == SoundFileSummary(format: "FLAC (Signed 16 bit PCM)", sampleRate: 44_100, channels: 2, seconds: 0.5))
        #expect(try SoundFileReader.check(mp3).format.contains("MPEG"))
    }

    @Test func aLoopingSoundRewindsToItsFirstFrame() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/short.flac"
        let written = TestSoundFiles.sine(frequency: 1_000, seconds: 0.1, rate: 8_000)
        try TestSoundFiles.write(written, to: path, as: .flac, rate: 8_000)
        let reader = try SoundFileReader(path: path)
        var buffer = [Int16](repeating: 0, count: 2_000)
        let first = try reader.read(into: &buffer, frames: 2_000)
        #expect(first == 800)
        #expect(try reader.read(into: &buffer, frames: 2_000) == 0)
        try reader.rewind()
        #expect(try reader.read(into: &buffer, frames: 10) == 10)
        #expect(Array(buffer[0..<10]) == Array(written[0..<10]))
    }

    @Test func whatCannotRingIsRefusedWithTheReason() throws {
        let directory = try TemporaryDirectory()
        let text = directory.path + "/notes.mp3"
        try TestFiles.write(Array("This is not a sound.\n".utf8), to: text)
        let notSound = try #require(throws: SoundFileError.self) { try SoundFileReader.check(text) }
        #expect(notSound.path == text)
        #expect(notSound.description.hasPrefix("\(text): "))
        #expect(!notSound.reason.isEmpty)

        let missing = try #require(throws: SoundFileError.self) { try SoundFileReader.check(directory.path + "/gone.flac") }
        #expect(missing.errno == ENOENT)
        #expect(missing.reason == "cannot be opened: No such file or directory")

        let fifo = directory.path + "/fifo.wav"
        #expect(mkfifo(fifo, 0o600) == 0)
        let notRegular = try #require(throws: SoundFileError.self) { try SoundFileReader.check(fifo) }
        #expect(notRegular.reason == "not a regular file", "a FIFO never blocks the check")

        let silentHeader = directory.path + "/empty.wav"
        try TestSoundFiles.write([], to: silentHeader, as: .wav, rate: 48_000)
        let empty = try #require(throws: SoundFileError.self) { try SoundFileReader.check(silentHeader) }
        #expect(empty.reason == "holds no sound (no frames decode)")

        let surround = directory.path + "/surround.wav"
        try TestSoundFiles.write([Int16](repeating: 0, count: 6 * 100), to: surround, as: .wav, rate: 48_000, channels: 6)
        let sixChannels = try #require(throws: SoundFileError.self) { try SoundFileReader.check(surround) }
        #expect(sixChannels.reason == "has 6 channels; an alarm sound is mono or stereo")
    }

    @Test func aFileWhoseFramesAreDamagedAfterItsHeaderIsRefused() throws {
        let directory = try TemporaryDirectory()
        let whole = directory.path + "/whole.flac", damaged = directory.path + "/damaged.flac"
        try TestSoundFiles.write(TestSoundFiles.sine(frequency: 1_000, seconds: 2, rate: 48_000), to: whole, as: .flac, rate: 48_000)
        let bytes = try #require(TestFiles.read(whole))
        // The header and its metadata, then garbage where the frames were.
        try TestFiles.write(Array(bytes[0..<200]) + [UInt8](repeating: 0xA5, count: 4_000), to: damaged)
        let error = try #require(throws: SoundFileError.self) { try SoundFileReader.check(damaged) }
        #expect(error.path == damaged)
    }
}
