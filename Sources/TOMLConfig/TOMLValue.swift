/// A value of the TOML subset ``TOMLDocument`` reads.
public enum TOMLValue: Hashable, Sendable, CustomStringConvertible {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    /// Elements may have different types, as TOML 1.0 allows.
    case array([TOMLValue])

    /// The value written back as TOML (`"GPIO4"`, `39`, `true`, `[1, 2]`), for messages.
    public var description: String {
        switch self {
        case .string(let text): Self.quoted(text)
        case .integer(let number): String(number)
        case .float(let number): number.isNaN ? "nan" : number.isInfinite ? (number < 0 ? "-inf" : "inf") : String(number)
        case .boolean(let flag): String(flag)
        case .array(let elements): "[" + elements.map(\.description).joined(separator: ", ") + "]"
        }
    }

    /// `text` as a TOML basic string, with the escapes needed to read it back.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// One `key = value` line of a document: the full dotted key (the table's name, a dot, the key),
/// the value, and the line it came from.
public struct TOMLEntry: Hashable, Sendable {
    /// The full dotted key: `display.pins.rs` for `rs = 0` under `[display.pins]`.
    public let key: String
    public let value: TOMLValue
    public let line: Int

    public init(key: String, value: TOMLValue, line: Int) {
        self.key = key
        self.value = value
        self.line = line
    }
}

/// A `[table]` header of a document.
public struct TOMLTable: Hashable, Sendable {
    /// The dotted name between the brackets, without spaces: `display.pins`.
    public let name: String
    public let line: Int

    public init(name: String, line: Int) {
        self.name = name
        self.line = line
    }
}
