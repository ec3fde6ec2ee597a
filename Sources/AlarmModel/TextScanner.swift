/// A forward-only cursor over the ASCII bytes of a string, for small fixed grammars (civil dates
/// and times here; ISO 8601 and POSIX TZ strings in AlarmTime); never traps, whatever the input.
package struct TextScanner {
    private let bytes: [UInt8]
    package private(set) var position = 0

    package init(_ text: String) {
        bytes = Array(text.utf8)
    }

    package var isAtEnd: Bool { position >= bytes.count }

    /// The next byte, or nil at the end.
    package func peek(_ ahead: Int = 0) -> UInt8? {
        let index = position + ahead
        return index < bytes.count ? bytes[index] : nil
    }

    package mutating func consume(_ scalar: Unicode.Scalar) -> Bool {
        guard let next = peek(), UInt32(next) == scalar.value else { return false }
        position += 1
        return true
    }

    package mutating func next() -> UInt8? {
        guard let byte = peek() else { return nil }
        position += 1
        return byte
    }

    /// Consumes `minDigits...maxDigits` decimal digits (greedily) and returns their value;
    /// consumes nothing and returns nil when fewer than `minDigits` are present.
    package mutating func integer(minDigits: Int, maxDigits: Int) -> Int? {
        var value = 0
        var count = 0
        while count < maxDigits, let byte = peek(count), TextScanner.isDigit(byte) {
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            count += 1
        }
        guard count >= minDigits, count > 0 else { return nil }
        position += count
        return value
    }

    /// Consumes a run of digits, returning them (possibly empty).
    package mutating func digitRun() -> ArraySlice<UInt8> {
        let start = position
        while let byte = peek(), TextScanner.isDigit(byte) { position += 1 }
        return bytes[start..<position]
    }

    package static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    package static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }
}

/// Zero-padded decimal formatting without Foundation's `String(format:)`.
package enum TextDigits {
    /// Two digits for 0...99 (more digits pass through unchanged).
    package static func pad2(_ value: Int) -> String {
        value < 10 && value >= 0 ? "0\(value)" : "\(value)"
    }

    /// At least four digits, with a leading "-" for negative years.
    package static func year(_ year: Int) -> String {
        let magnitude = year.magnitude
        let digits = String(magnitude)
        let padded = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        return year < 0 ? "-" + padded : padded
    }
}
