/// Deterministic choices derived from the input itself (chunk sizes, a line limit), so a saved
/// input replays exactly and the seed files stay plain text with no control prefix.
///
/// SplitMix64 seeded with the input's FNV-1a hash: any change to the input gives other choices,
/// which lets libFuzzer explore them too.
struct FuzzRandom {
    private var state: UInt64

    init(seed bytes: [UInt8]) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        state = hash
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range`.
    mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// `bytes` cut in pieces as `read` might return them: mostly small, sometimes all at once.
    mutating func chunks(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var offset = 0
        while offset < bytes.count {
            let size = next() % 8 == 0 ? bytes.count : next(in: 1...64)
            let end = min(bytes.count, offset + size)
            pieces.append(bytes[offset..<end])
            offset = end
        }
        return pieces
    }
}
