/// Checks that a line is exactly one JSON text as RFC 8259 defines it, in UTF-8, before anything
/// decodes it.
///
/// `JSONDecoder` is lenient (it takes a trailing comma, an unknown escape, a raw control character
/// or a lone surrogate in a string), so every request line passes this first, and a line it
/// refuses is refused whole, never executed.
///
/// Accepted: one value with optional whitespace (space, tab, CR, LF) around it; RFC 8259's
/// grammar for objects, arrays, strings, numbers, `true`, `false` and `null`; well-formed UTF-8.
/// Refused, beyond the grammar:
/// - a member name repeated in one object (compared after unescaping: `"a"` and `"\u0061"` are
///   one name), since decoders disagree on which value counts;
/// - a `\u` escape of a surrogate that is not a high one followed by a `\u` low one;
/// - a byte order mark (RFC 8259 8.1 lets a parser ignore it; the protocol does not send one);
/// - more than ``maximumDepth`` arrays and objects inside one another.
package enum StrictJSON {
    /// The deepest nesting accepted; a request needs 7 levels.
    package static let maximumDepth = 64

    /// Where and why a line is not strict JSON.
    package struct Violation: Error, Equatable, CustomStringConvertible {
        /// The offset of the first byte that cannot be part of a JSON text.
        package var offset: Int
        /// What is wrong there, in a few words.
        package var problem: String
        /// Whether the problem is the encoding rather than the JSON itself.
        package var isEncoding = false
        /// When the line is an object: its members read in full before the violation, by name,
        /// with the byte range of each value, so that a refusal can still name the request's id.
        package var completeTopLevelMembers: [String: Range<Int>] = [:]

        package var description: String { "\(problem) at byte \(offset)" }
    }

    /// The members of `bytes`, a strict JSON object, by name with the byte range of each value
    /// (empty for any other strict JSON text); or the first violation.
    package static func topLevelMembers(_ bytes: [UInt8]) -> Result<[String: Range<Int>], Violation> {
        var validator = Validator(bytes: bytes)
        do throws(Violation) {
            try validator.validateText()
            return .success(validator.topLevelMembers)
        } catch {
            var violation = error
            violation.completeTopLevelMembers = validator.topLevelMembers
            return .failure(violation)
        }
    }

    /// `nil` if `bytes` is exactly one strict JSON text; else the first violation.
    package static func validate(_ bytes: [UInt8]) -> Violation? {
        if case .failure(let violation) = topLevelMembers(bytes) { return violation }
        return nil
    }
}

private struct Validator {
    let bytes: [UInt8]
    var index = 0
    var topLevelMembers: [String: Range<Int>] = [:]
    /// The member names read so far in the objects being read, outermost first: one array for
    /// the whole line, so that checking names for repeats allocates nothing per object.
    private var names: [ArraySlice<UInt8>] = []
    /// Objects with more names than this also keep them in a set: a scan per name would make a
    /// 64 KiB object of short names cost a quadratic number of comparisons.
    private static let namesScannedPerObject = 32

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func validateText() throws(StrictJSON.Violation) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw violation("a byte order mark (the protocol is UTF-8 without one)")
        }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            throw violation("a UTF-16 byte order mark (the protocol is UTF-8)", isEncoding: true)
        }
        skipWhitespace()
        try value(depth: 0)
        skipWhitespace()
        if index < bytes.count { throw unexpected("after the JSON value") }
    }

    // MARK: - Values

    private mutating func value(depth: Int) throws(StrictJSON.Violation) {
        guard index < bytes.count else { throw violation("the line ends where a value belongs") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try object(depth: depth + 1)
        case UInt8(ascii: "["): try array(depth: depth + 1)
        case UInt8(ascii: "\""): try string(decodingEscapes: false)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "N"), UInt8(ascii: "I"): throw violation("NaN and Infinity are not JSON numbers")
        case UInt8(ascii: "+"): throw violation("a number with a plus sign")
        case UInt8(ascii: "."): throw violation("a number without a digit before its point")
        default: throw unexpected("where a value belongs")
        }
    }

    private mutating func object(depth: Int) throws(StrictJSON.Violation) {
        try checkDepth(depth)
        index += 1
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return }
        let firstName = names.count
        defer { names.removeSubrange(firstName...) }
        var manyNames: Set<ArraySlice<UInt8>>?
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                guard index < bytes.count else { throw violation("the line ends inside an object") }
                if bytes[index] == UInt8(ascii: "}") { throw violation("a trailing comma before }") }
                throw unexpected("where a member name in double quotes belongs")
            }
            let nameStart = index
            let name = try string(decodingEscapes: true)
            let isRepeated: Bool
            if names.count - firstName < Self.namesScannedPerObject {
                isRepeated = names[firstName...].contains(name)
                names.append(name)
            } else {
                if manyNames == nil { manyNames = Set(names[firstName...]) }
                isRepeated = manyNames?.insert(name).inserted == false
            }
            if isRepeated {
                index = nameStart
                throw violation("the member name \(quoted(name)) a second time in one object")
            }
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { throw expected("':' after a member name") }
            skipWhitespace()
            let valueStart = index
            try value(depth: depth)
            if depth == 1 { topLevelMembers[String(decoding: name, as: UTF8.self)] = valueStart..<index }
            skipWhitespace()
            if take(UInt8(ascii: "}")) { return }
            guard take(UInt8(ascii: ",")) else { throw expected("',' or '}' after a member") }
            skipWhitespace()
        }
    }

    private mutating func array(depth: Int) throws(StrictJSON.Violation) {
        try checkDepth(depth)
        index += 1
        skipWhitespace()
        if take(UInt8(ascii: "]")) { return }
        while true {
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { throw violation("a trailing comma before ]") }
            try value(depth: depth)
            skipWhitespace()
            if take(UInt8(ascii: "]")) { return }
            guard take(UInt8(ascii: ",")) else { throw expected("',' or ']' after an element") }
            skipWhitespace()
        }
    }

    private func checkDepth(_ depth: Int) throws(StrictJSON.Violation) {
        if depth > StrictJSON.maximumDepth {
            throw violation("more than \(StrictJSON.maximumDepth) arrays and objects inside one another")
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func number() throws(StrictJSON.Violation) {
        _ = take(UInt8(ascii: "-"))
        if take(UInt8(ascii: "0")) {
            if index < bytes.count, isDigit(bytes[index]) { throw violation("a number with a leading zero") }
        } else if !skipDigits() {
            throw expected("a digit")
        }
        if take(UInt8(ascii: ".")), !skipDigits() { throw expected("a digit after the decimal point") }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            guard skipDigits() else { throw expected("a digit in the exponent") }
        }
    }

    private mutating func literal(_ word: StaticString) throws(StrictJSON.Violation) {
        let matches = word.withUTF8Buffer { word in
            bytes.count - index >= word.count && zip(bytes[index...], word).allSatisfy { $0 == $1 }
        }
        guard matches else { throw violation("a word that is not true, false or null") }
        index += word.utf8CodeUnitCount
    }

    // MARK: - Strings

    /// Reads a string and returns its contents as UTF-8: a slice of the line, or, for a string
    /// with escapes when `decodingEscapes` (member names, compared by what they mean), of a
    /// decoded copy.
    @discardableResult
    private mutating func string(decodingEscapes: Bool) throws(StrictJSON.Violation) -> ArraySlice<UInt8> {
        index += 1
        let start = index
        // The contents so far, once an escape made them differ from the line's bytes.
        var decoded: [UInt8]?
        while true {
            guard index < bytes.count else { throw violation("the line ends inside a string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return decoded.map { $0[...] } ?? bytes[start..<(index - 1)]
            case UInt8(ascii: "\\"):
                if decodingEscapes, decoded == nil { decoded = Array(bytes[start..<index]) }
                let scalar = try escape()
                decoded?.append(contentsOf: String(scalar).utf8)
            case 0x00..<0x20:
                throw violation("the control character \(hex(UInt32(byte))) unescaped in a string")
            case 0x20..<0x80:
                decoded?.append(byte)
                index += 1
            default:
                guard let length = utf8SequenceLength(at: index) else { throw violation("invalid UTF-8", isEncoding: true) }
                decoded?.append(contentsOf: bytes[index..<index + length])
                index += length
            }
        }
    }

    /// One escape, from its backslash: `\" \\ \/ \b \f \n \r \t`, or `\uXXXX` (a surrogate only
    /// as a high one followed by a low one).
    private mutating func escape() throws(StrictJSON.Violation) -> Unicode.Scalar {
        let start = index
        index += 1
        guard index < bytes.count else { throw violation("the line ends inside a string") }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(letter)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"): break
        default:
            index = start
            throw violation("the invalid escape \\\(letter >= 0x21 && letter < 0x7F ? String(UnicodeScalar(letter)) : hex(UInt32(letter)))")
        }
        let unit = try hexQuad(escapeStart: start)
        switch unit {
        case 0xD800...0xDBFF:
            let lowStart = index
            guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                index = start
                throw violation("the high surrogate \\u\(hexDigits(unit)) without a low one after it")
            }
            index += 2
            let low = try hexQuad(escapeStart: lowStart)
            guard (0xDC00...0xDFFF).contains(low) else {
                index = start
                throw violation("the high surrogate \\u\(hexDigits(unit)) without a low one after it")
            }
            // Always a valid scalar: U+10000 to U+10FFFF.
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
        case 0xDC00...0xDFFF:
            index = start
            throw violation("the low surrogate \\u\(hexDigits(unit)) without a high one before it")
        default:
            return Unicode.Scalar(unit)!
        }
    }

    /// The four hex digits after `\u`.
    private mutating func hexQuad(escapeStart: Int) throws(StrictJSON.Violation) -> UInt32 {
        guard bytes.count - index >= 4 else {
            index = escapeStart
            throw violation("a \\u escape without four hex digits")
        }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            guard let digit = Character(UnicodeScalar(byte)).hexDigitValue else {
                index = escapeStart
                throw violation("a \\u escape without four hex digits")
            }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }

    /// The length of the well-formed multi-byte UTF-8 sequence at `position`, as Unicode's table
    /// 3-7 defines it (no overlong forms, no surrogates, nothing above U+10FFFF); `nil` if there
    /// is none.
    private func utf8SequenceLength(at position: Int) -> Int? {
        // How many continuation bytes follow the lead, and the range the first of them must be in.
        let continuations: Int
        let second: ClosedRange<UInt8>
        switch bytes[position] {
        case 0xC2...0xDF: (continuations, second) = (1, 0x80...0xBF)
        case 0xE0: (continuations, second) = (2, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (continuations, second) = (2, 0x80...0xBF)
        case 0xED: (continuations, second) = (2, 0x80...0x9F)
        case 0xF0: (continuations, second) = (3, 0x90...0xBF)
        case 0xF1...0xF3: (continuations, second) = (3, 0x80...0xBF)
        case 0xF4: (continuations, second) = (3, 0x80...0x8F)
        default: return nil
        }
        guard bytes.count - position > continuations, second.contains(bytes[position + 1]) else { return nil }
        for next in position + 2..<position + 1 + continuations where !(0x80...0xBF).contains(bytes[next]) {
            return nil
        }
        return 1 + continuations
    }

    // MARK: - Bytes

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Skips digits; `false` if there were none.
    private mutating func skipDigits() -> Bool {
        let start = index
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        return index > start
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private func violation(_ problem: String, isEncoding: Bool = false) -> StrictJSON.Violation {
        StrictJSON.Violation(offset: index, problem: problem, isEncoding: isEncoding)
    }

    /// The character at `index` does not belong `where`: named as a person can read it (`'x'`,
    /// `U+00E9`, `byte 0x00`), or the line's UTF-8 is what is wrong.
    private func unexpected(_ place: String) -> StrictJSON.Violation {
        guard index < bytes.count else { return violation("the line ends \(place)") }
        let byte = bytes[index]
        if byte == UInt8(ascii: "/") { return violation("a comment \(place) (JSON has none)") }
        if byte == UInt8(ascii: "'") { return violation("a single-quoted string \(place)") }
        if byte >= 0x21 && byte < 0x7F { return violation("'\(UnicodeScalar(byte))' \(place)") }
        if byte < 0x80 { return violation("byte 0x\(hexDigits(UInt32(byte), width: 2)) \(place)") }
        guard let length = utf8SequenceLength(at: index) else { return violation("invalid UTF-8", isEncoding: true) }
        let scalar = String(decoding: bytes[index..<index + length], as: UTF8.self).unicodeScalars.first?.value ?? 0
        return violation("\(hex(scalar)) \(place)")
    }

    /// What the line has where `what` belongs.
    private func expected(_ what: String) -> StrictJSON.Violation {
        unexpected("where \(what) belongs")
    }

    /// A member name for a message: quoted, with controls escaped and cut to 40 characters.
    private func quoted(_ name: ArraySlice<UInt8>) -> String {
        let text = String(decoding: name, as: UTF8.self)
        return "\"" + ControlRequest.clipped(text, to: 40) + "\""
    }

    private func hex(_ value: UInt32) -> String {
        "U+" + hexDigits(value)
    }

    private func hexDigits(_ value: UInt32, width: Int = 4) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
