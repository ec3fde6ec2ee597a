@testable import AlarmALSA
import AlarmHardware
import AlarmTestKit
import Glibc
import Testing

/// Sounds in the formats people have (FLAC, Ogg Vorbis, Opus, MP3) play through ALSA, decoded as
/// they play: the device hears the file's tone at its level, whole, and looping from its start.
@Suite(.timeLimit(.minutes(2))) struct CompressedSoundTests {
    @Test(arguments: [TestSoundFiles.Format.flac, .ogg, .opus, .mp3])
    func eachFormatPlaysItsToneAtItsLevel(_ format: TestSoundFiles.Format) async throws {
        let rig = try FilePluginRig(rate: 48_000, channels: 1)
        let path = rig.directory.path + "/tone." + format.rawValue
        try TestSoundFiles.write(TestSoundFiles.sine(frequency: 1_000, seconds: 0.5, rate: 48_000), to: path, as: format, rate: 48_000)
        try await rig.output.play(.file(path), gain: .constant(0), looping: false)
        await rig.output.waitUntilIdle()

        let recording = try rig.recording()
        #expect(abs(recording.frameCount - 24_000) <= 2_400, "\(recording.frameCount) frames")
        let samples = Signal.channel(0, of: recording)
        let middle = Signal.frames(0.1, rate: 48_000)..<Signal.frames(0.4, rate: 48_000)
        #expect(abs(Signal.frequency(samples, in: middle, sampleRate: 48_000) - 1_000) < 10)
        #expect(abs(Signal.decibels(samples, in: middle) - 20 * log10(0.5 / 2.0.squareRoot())) < 1)
    }

    @Test func aShortFileLoopsFromItsStartUntilStopped() async throws {
        let rig = try FilePluginRig(rate: 8_000, channels: 1)
        let path = rig.directory.path + "/blip.flac"
        // 50 ms of tone: a 20 ms period holds two loop points in three periods.
        let blip = TestSoundFiles.sine(frequency: 1_000, seconds: 0.05, rate: 8_000)
        try TestSoundFiles.write(blip, to: path, as: .flac, rate: 8_000)
        try await rig.output.play(.file(path), gain: .constant(0), looping: true)
        // The file plugin writes a buffer behind: wait until 4,000 frames (10 loops) are in.
        try await TestFiles.waitUntil(watching: rig.recordingPath, failure: { "ten loops were not recorded" }) {
            rig.recordedBytes > 44 + 2 * 4_000 ? () : nil
        }
        await rig.output.stop()

        let recording = try rig.recording()
        #expect(recording.frameCount >= 4_000)
        for start in stride(from: 0, to: 4_000 - blip.count, by: blip.count) {
            #expect(Array(recording.samples[start..<(start + blip.count)]) == blip, "loop at frame \(start)")
        }
    }
}
