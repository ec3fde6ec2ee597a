/// Reads the routing fields of a line from the daemon (`id`, `ok`, `event`, `subscription`)
/// without parsing the rest.
///
/// The client routes every line before anything decodes it: a response to the request waiting
/// for it, an event to its subscription. `JSONDecoder` tokenizes the whole line even to read
/// four small fields, and a list of 100 alarms is about 25 KB; this skips nested values by
/// counting brackets. Anything it does not understand gives `nil`, and the caller decodes the
/// line in full instead.
struct EnvelopeScanner {
    struct Envelope: Equatable {
        var id: Int64?
        var ok: Bool?
        var isEvent = false
        var subscription: Int?
    }

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The routing fields of `line`, a JSON object; `nil` if it is not one this reads.
    static func scan(_ line: [UInt8]) -> Envelope? {
        var scanner = EnvelopeScanner(line)
        return scanner.scanObject()
    }

    private mutating func scanObject() -> Envelope? {
        var envelope = Envelope()
        // A repeated routing key is read differently by different decoders (JSONDecoder keeps the
        // first): such a line is left to the full decode.
        var seen: Set<String> = []
        skipSpace()
        guard take(UInt8(ascii: "{")) else { return nil }
        skipSpace()
        if take(UInt8(ascii: "}")) { return envelope }
        while true {
            skipSpace()
            guard let key = readSimpleString() else { return nil }
            skipSpace()
            guard take(UInt8(ascii: ":")) else { return nil }
            skipSpace()
            if ["id", "ok", "event", "subscription"].contains(key), !seen.insert(key).inserted { return nil }
            switch key {
            case "id":
                guard let number = readInteger() else {
                    guard readLiteral("null") else { return nil }
                    break
                }
                envelope.id = number
            case "ok":
                if readLiteral("true") { envelope.ok = true } else if readLiteral("false") { envelope.ok = false } else { return nil }
            case "event":
                envelope.isEvent = true
                guard skipValue() else { return nil }
            case "subscription":
                guard let number = readInteger(), let subscription = Int(exactly: number) else { return nil }
                envelope.subscription = subscription
            default:
                guard skipValue() else { return nil }
            }
            skipSpace()
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "}")) else { return nil }
            skipSpace()
            return index == bytes.count ? envelope : nil
        }
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func readLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let matches = literal.withUTF8Buffer { buffer in
            (0..<count).allSatisfy { bytes[index + $0] == buffer[$0] }
        }
        if matches { index += count }
        return matches
    }

    /// A key without escapes (every key of the protocol); `nil` otherwise.
    private mutating func readSimpleString() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            if bytes[index] == UInt8(ascii: "\\") { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// An integer that is the whole value (no fraction or exponent).
    private mutating func readInteger() -> Int64? {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digits = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        guard index > digits, index - digits <= 18 else {
            index = start
            return nil
        }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
            index = start
            return nil
        }
        return Int64(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    /// Skips one value of any kind: strings honour escapes, objects and arrays nest.
    private mutating func skipValue() -> Bool {
        var depth = 0
        repeat {
            guard index < bytes.count else { return false }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < bytes.count else { return false }
                index += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard depth > 0 else { return false }
                depth -= 1
                index += 1
            case UInt8(ascii: ","), UInt8(ascii: ":"), 0x20, 0x09, 0x0A, 0x0D:
                guard depth > 0 else { return false }
                index += 1
            default:
                // A number, true, false or null: up to the next delimiter.
                let start = index
                while index < bytes.count,
                    ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(bytes[index])
                {
                    index += 1
                }
                guard index > start else { return false }
            }
        } while depth > 0
        return true
    }
}
