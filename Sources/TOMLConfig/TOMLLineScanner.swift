/// Reads one line of the TOML subset: a table header, or a key and its value. Lines are short, so
/// the scanner works on an array of scalars and never backtracks more than a token.
struct TOMLLineScanner {
    /// Why a line was refused; the document adds the file and the line number.
    struct Failure: Error {
        var message: String
        var key: String?

        /// `message` may quote the file's own text: control characters in it (a stray CR, a form
        /// feed) are shown as U+XXXX, so the error stays one readable line.
        init(_ message: String, key: String? = nil) {
            self.message = String(message.unicodeScalars.map(TOMLLineScanner.printable).joined())
            self.key = key
        }
    }

    /// Deeper arrays are refused, so a hostile line cannot exhaust the stack.
    static let maximumArrayDepth = 32

    private let scalars: [Unicode.Scalar]
    private var position = 0

    init(_ scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    var peek: Unicode.Scalar? {
        position < scalars.count ? scalars[position] : nil
    }

    var atEndOrComment: Bool {
        peek == nil || peek == "#"
    }

    mutating func skipWhitespace() {
        while peek == " " || peek == "\t" { position += 1 }
    }

    /// `[name]` or `[name.sub]`, then the end of the line; returns the dotted name.
    mutating func header() throws(Failure) -> String {
        position += 1  // "["
        if peek == "[" { throw Failure("arrays of tables ([[...]]) are not supported") }
        var segments: [String] = []
        repeat {
            if !segments.isEmpty { position += 1 }  // "."
            skipWhitespace()
            segments.append(try bareKey(context: "table name"))
            skipWhitespace()
        } while peek == "."
        guard peek == "]" else {
            throw Failure(peek == nil ? "missing ']' at the end of the table header" : "unexpected \(shown(peek!)) in the table header")
        }
        position += 1
        try end(after: "the table header")
        return segments.joined(separator: ".")
    }

    /// A bare key and the `=` after it.
    mutating func key() throws(Failure) -> String {
        if peek == "=" { throw Failure("missing key before '='") }
        let key = try bareKey(context: "key")
        skipWhitespace()
        if peek == "." { throw Failure("dotted keys are not supported; put the key under a [table] header", key: key) }
        guard peek == "=" else {
            throw Failure(peek == nil ? "expected '=' and a value after the key" : "expected '=' after the key, found \(shown(peek!))", key: key)
        }
        position += 1
        skipWhitespace()
        return key
    }

    /// The value after `=`, then the end of the line.
    mutating func valueAndEnd() throws(Failure) -> TOMLValue {
        if atEndOrComment { throw Failure("missing value after '='") }
        let result = try value(depth: 0)
        try end(after: "the value")
        return result
    }

    // MARK: - Pieces

    private mutating func bareKey(context: String) throws(Failure) -> String {
        let start = position
        while let scalar = peek, Self.isBareKeyScalar(scalar) { position += 1 }
        if position == start {
            switch peek {
            case "\"", "'": throw Failure("quoted keys are not supported; use letters, digits, '_' and '-'")
            case nil: throw Failure("missing \(context)")
            case let scalar?: throw Failure("unexpected \(shown(scalar)) where a \(context) should be")
            }
        }
        return String(String.UnicodeScalarView(scalars[start..<position]))
    }

    /// Only whitespace and a comment may follow.
    private mutating func end(after what: String) throws(Failure) {
        skipWhitespace()
        guard atEndOrComment else { throw Failure("unexpected text after \(what): \(rest)") }
    }

    private mutating func value(depth: Int) throws(Failure) -> TOMLValue {
        switch peek {
        case "\"":
            if lookingAt("\"\"\"") { throw Failure("multi-line strings (\"\"\") are not supported") }
            return .string(try basicString())
        case "'":
            if lookingAt("'''") { throw Failure("multi-line strings (''') are not supported") }
            return .string(try literalString())
        case "[":
            return try array(depth: depth + 1)
        case "{":
            throw Failure("inline tables ({...}) are not supported; use a [table] header")
        default:
            return try Self.scalarValue(token())
        }
    }

    private mutating func basicString() throws(Failure) -> String {
        position += 1
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = peek else { throw Failure("unterminated string (strings end on the line they start)") }
            position += 1
            switch scalar {
            case "\"":
                return String(result)
            case "\\":
                result.append(try escape())
            default:
                try Self.checkNotControl(scalar)
                result.append(scalar)
            }
        }
    }

    private mutating func escape() throws(Failure) -> Unicode.Scalar {
        guard let letter = peek else { throw Failure("unterminated string (a '\\' ends the line)") }
        position += 1
        switch letter {
        case "\"": return "\""
        case "\\": return "\\"
        case "b": return "\u{08}"
        case "t": return "\t"
        case "n": return "\n"
        case "f": return "\u{0C}"
        case "r": return "\r"
        case "u": return try unicodeEscape(digits: 4, letter: "u")
        case "U": return try unicodeEscape(digits: 8, letter: "U")
        default: throw Failure("invalid escape \\\(Self.printable(letter)) in string")
        }
    }

    private mutating func unicodeEscape(digits: Int, letter: String) throws(Failure) -> Unicode.Scalar {
        let end = position + digits
        guard end <= scalars.count, scalars[position..<end].allSatisfy({ $0.properties.isASCIIHexDigit }) else {
            throw Failure("\\\(letter) needs exactly \(digits) hexadecimal digits")
        }
        let hex = String(String.UnicodeScalarView(scalars[position..<end]))
        position = end
        guard let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
            throw Failure("\\\(letter)\(hex) is not a Unicode scalar value")
        }
        return scalar
    }

    private mutating func literalString() throws(Failure) -> String {
        position += 1
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = peek else { throw Failure("unterminated string (strings end on the line they start)") }
            position += 1
            if scalar == "'" { return String(result) }
            try Self.checkNotControl(scalar)
            result.append(scalar)
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> TOMLValue {
        guard depth <= Self.maximumArrayDepth else { throw Failure("arrays nested more than \(Self.maximumArrayDepth) deep") }
        position += 1
        var elements: [TOMLValue] = []
        while true {
            skipWhitespace()
            if atEndOrComment { throw Failure("unterminated array (multi-line arrays are not supported)") }
            if peek == "]" { break }
            elements.append(try value(depth: depth))
            skipWhitespace()
            if peek == "," {
                position += 1
            } else if peek == "]" {
                break
            } else if atEndOrComment {
                throw Failure("unterminated array (multi-line arrays are not supported)")
            } else {
                throw Failure("expected ',' or ']' in the array, found \(shown(peek!))")
            }
        }
        position += 1
        return .array(elements)
    }

    /// The characters of an unquoted value: a number, a boolean, or something refused.
    private mutating func token() -> String {
        let start = position
        while let scalar = peek, scalar != " ", scalar != "\t", scalar != ",", scalar != "]", scalar != "#" {
            position += 1
        }
        return String(String.UnicodeScalarView(scalars[start..<position]))
    }

    private func lookingAt(_ text: String) -> Bool {
        let wanted = Array(text.unicodeScalars)
        return position + wanted.count <= scalars.count && Array(scalars[position..<position + wanted.count]) == wanted
    }

    private var rest: String {
        String(String.UnicodeScalarView(scalars[position...].prefix(20)))
    }

    private func shown(_ scalar: Unicode.Scalar) -> String {
        "'\(Self.printable(scalar))'"
    }

    static func printable(_ scalar: Unicode.Scalar) -> String {
        scalar.value < 0x20 || scalar.value == 0x7F ? "U+" + hex4(scalar.value) : String(scalar)
    }

    private static func hex4(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    private static func checkNotControl(_ scalar: Unicode.Scalar) throws(Failure) {
        if (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F {
            throw Failure("control character U+\(hex4(scalar.value)) in string (write it as an escape)")
        }
    }

    private static func isBareKeyScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
        default: false
        }
    }
}
