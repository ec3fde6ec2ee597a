/// A PCM WAV file, read for playing an alarm's `.named` sound.
///
/// Reads RIFF/WAVE with a `fmt ` chunk of PCM (format 1, or WAVE_FORMAT_EXTENSIBLE carrying PCM),
/// 16 or 24 bits, 1 or 2 channels, 8 to 96 kHz, and its `data` chunk; other chunks are skipped.
/// Everything else is refused with a ``WAVError`` that says what, so the appliance can log it and
/// fall back to the built-in tone. Every length is checked: a damaged file never traps.
public struct WAVFile: Hashable, Sendable {
    public let sampleRate: Int
    public let channels: Int
    public let bitsPerSample: Int
    /// Frames, each `channels` samples, as signed 16-bit (24-bit samples keep their top 16 bits).
    public let samples: [Int16]

    public var frameCount: Int { samples.count / channels }

    public init(bytes: [UInt8]) throws(WAVError) {
        var reader = LittleEndianReader(bytes)
        guard try reader.tag() == "RIFF" else { throw .notAWAVFile }
        _ = try reader.uint32()  // the RIFF size is often wrong in the wild; chunk sizes are checked instead
        guard try reader.tag() == "WAVE" else { throw .notAWAVFile }

        var format: (channels: Int, rate: Int, bits: Int)?
        while !reader.isAtEnd {
            let tag = try reader.tag()
            let size = Int(try reader.uint32())
            let body = try reader.take(size)
            if size % 2 == 1, !reader.isAtEnd { _ = try reader.take(1) }  // chunks are padded to even sizes
            switch tag {
            case "fmt ":
                format = try Self.parseFormat(body)
            case "data":
                guard let format else { throw .malformed("the data chunk comes before the fmt chunk") }
                let bytesPerFrame = format.channels * format.bits / 8
                guard body.count % bytesPerFrame == 0 else {
                    throw .malformed("the data chunk ends inside a frame (\(body.count) bytes, \(bytesPerFrame) per frame)")
                }
                sampleRate = format.rate
                channels = format.channels
                bitsPerSample = format.bits
                samples = Self.decode(body, bits: format.bits)
                return
            default:
                continue
            }
        }
        throw .malformed(format == nil ? "no fmt chunk" : "no data chunk")
    }

    private static func parseFormat(_ body: ArraySlice<UInt8>) throws(WAVError) -> (channels: Int, rate: Int, bits: Int) {
        var reader = LittleEndianReader(Array(body))
        var formatTag = Int(try reader.uint16())
        let channels = Int(try reader.uint16())
        let rate = Int(try reader.uint32())
        _ = try reader.uint32()  // byte rate
        _ = try reader.uint16()  // block align
        let bits = Int(try reader.uint16())
        if formatTag == 0xFFFE {  // WAVE_FORMAT_EXTENSIBLE: the real format is in the sub-format GUID
            _ = try reader.uint16()  // extension size
            _ = try reader.uint16()  // valid bits
            _ = try reader.uint32()  // channel mask
            formatTag = Int(try reader.uint16())
        }
        guard formatTag == 1 else { throw .unsupported("format \(formatTag) is not PCM") }
        guard bits == 16 || bits == 24 else { throw .unsupported("\(bits)-bit samples (16 or 24 only)") }
        guard (1...2).contains(channels) else { throw .unsupported("\(channels) channels (mono or stereo only)") }
        guard (8_000...96_000).contains(rate) else { throw .unsupported("\(rate) Hz (8 to 96 kHz only)") }
        return (channels, rate, bits)
    }

    private static func decode(_ body: ArraySlice<UInt8>, bits: Int) -> [Int16] {
        let bytes = Array(body)
        let width = bits / 8
        var samples: [Int16] = []
        samples.reserveCapacity(bytes.count / width)
        var offset = 0
        while offset + width <= bytes.count {
            // Little-endian; the top two bytes of a 24-bit sample are its 16 most significant bits.
            let low = bytes[offset + width - 2], high = bytes[offset + width - 1]
            samples.append(Int16(bitPattern: UInt16(low) | UInt16(high) << 8))
            offset += width
        }
        return samples
    }
}

/// Why a WAV file cannot be played.
public enum WAVError: Error, Hashable, Sendable, CustomStringConvertible {
    case notAWAVFile
    case truncated
    case malformed(String)
    case unsupported(String)

    public var description: String {
        switch self {
        case .notAWAVFile: "not a WAV file (no RIFF/WAVE header)"
        case .truncated: "the file ends in the middle of a chunk"
        case .malformed(let reason): "malformed WAV file: \(reason)"
        case .unsupported(let reason): "unsupported WAV file: \(reason)"
        }
    }
}

private struct LittleEndianReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func take(_ count: Int) throws(WAVError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count - offset else { throw .truncated }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func tag() throws(WAVError) -> String {
        String(decoding: try take(4), as: UTF8.self)
    }

    mutating func uint16() throws(WAVError) -> UInt16 {
        let part = try take(2)
        return UInt16(part[part.startIndex]) | UInt16(part[part.startIndex + 1]) << 8
    }

    mutating func uint32() throws(WAVError) -> UInt32 {
        let part = try take(4)
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(part[part.startIndex + $1]) << (8 * $1) }
    }
}
