/// Bounds-checked big-endian reading of untrusted bytes: every read returns nil instead of trapping
/// when the data runs out.
struct ByteReader {
    private let bytes: [UInt8]
    /// The index of the next byte to read.
    private(set) var position: Int

    init(_ bytes: [UInt8], position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    var remaining: Int { max(0, bytes.count - position) }

    mutating func uint8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func uint32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        var value: UInt32 = 0
        for index in position..<(position + 4) { value = value << 8 | UInt32(bytes[index]) }
        position += 4
        return value
    }

    /// Reads a big-endian two's-complement 32-bit value.
    mutating func int32() -> Int32? {
        uint32().map { Int32(bitPattern: $0) }
    }

    /// Reads a big-endian two's-complement 64-bit value.
    mutating func int64() -> Int64? {
        guard remaining >= 8 else { return nil }
        var value: UInt64 = 0
        for index in position..<(position + 8) { value = value << 8 | UInt64(bytes[index]) }
        position += 8
        return Int64(bitPattern: value)
    }

    mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, remaining >= count else { return nil }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    /// Skips `count` bytes; false (and nothing skipped) if fewer remain.
    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, remaining >= count else { return false }
        position += count
        return true
    }
}
