/// SplitMix64: a random number generator that repeats its sequence for the same seed, so a
/// randomised test can be replayed.
///
/// ```swift
/// var random = SeededRandomNumberGenerator(seed: 42)
/// let count = Int.random(in: 0...8, using: &random)
/// ```
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
