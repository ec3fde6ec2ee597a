import AlarmHardware
import AlarmTestKit
import Testing

@Suite struct WAVFileTests {
    /// A WAV file's bytes, built here so each test states exactly what it reads.
    static func wav(
        format: UInt16 = 1, channels: UInt16 = 1, rate: UInt32 = 44_100, bits: UInt16 = 16,
        data: [UInt8], extraChunk: Bool = false
    ) -> [UInt8] {
        func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        let blockAlign = channels * bits / 8
        let fmt = le16(format) + le16(channels) + le32(rate) + le32(rate * UInt32(blockAlign)) + le16(blockAlign) + le16(bits)
        var chunks = Array("fmt ".utf8) + le32(UInt32(fmt.count)) + fmt
        if extraChunk { chunks += Array("LIST".utf8) + le32(3) + [1, 2, 3, 0] }  // odd size, padded
        chunks += Array("data".utf8) + le32(UInt32(data.count)) + data
        return Array("RIFF".utf8) + le32(UInt32(4 + chunks.count)) + Array("WAVE".utf8) + chunks
    }

    @Test func sixteenBitMonoIsReadSampleForSample() throws {
        let file = try WAVFile(bytes: Self.wav(data: [0x01, 0x00, 0xFF, 0x7F, 0x00, 0x80], extraChunk: true))
        #expect(file.sampleRate == 44_100 && file.channels == 1 && file.bitsPerSample == 16)
        #expect(file.samples == [1, Int16.max, Int16.min])
    }

    @Test func twentyFourBitStereoKeepsTheTopSixteenBits() throws {
        let file = try WAVFile(bytes: Self.wav(channels: 2, rate: 96_000, bits: 24, data: [0xAA, 0x34, 0x12, 0x00, 0x00, 0x80]))
        #expect(file.samples == [0x1234, Int16.min])
        #expect(file.frameCount == 1)
    }

    static let refused: [([UInt8], String)] = [
        (Array("not a wave file at all".utf8), "not a WAV file"),
        (wav(format: 3, bits: 16, data: [0, 0]), "format 3 is not PCM"),
        (wav(bits: 8, data: [0]), "8-bit"),
        (wav(channels: 6, data: Array(repeating: 0, count: 12)), "6 channels"),
        (wav(rate: 4_000, data: [0, 0]), "4000 Hz"),
        (wav(channels: 2, data: [0, 0, 0]), "ends inside a frame"),
        (Array(wav(data: [1, 0, 2, 0]).dropLast(3)), "ends in the middle"),
        (Array(wav(data: [1, 0]).prefix(20)), "ends in the middle"),
    ]

    @Test(arguments: refused)
    func aFileThatCannotBePlayedIsRefusedWithItsReason(_ bytes: [UInt8], _ reason: String) {
        do {
            _ = try WAVFile(bytes: bytes)
            Issue.record("accepted a file that should be refused: \(reason)")
        } catch {
            #expect("\(error)".contains(reason), "\(error)")
        }
    }

    @Test func damagedFilesNeverTrap() {
        let good = Self.wav(channels: 2, bits: 24, data: Array(repeating: 7, count: 60), extraChunk: true)
        var generator = SeededRandomNumberGenerator(seed: 0x5741_5645)
        for _ in 0..<3_000 {
            var bytes = good
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? WAVFile(bytes: Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator))))
        }
    }
}
