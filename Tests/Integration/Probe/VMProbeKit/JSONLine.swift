/// One value of the probe's JSON output.
///
/// Numbers are printed with a fixed number of decimals chosen per key (instants always with 6),
/// so the output is stable for a script to compare and for a person to read.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int)
    /// A number with `decimals` decimals; `null` when not finite.
    case number(Double, decimals: Int)
    case instant(RealtimeInstant)
    /// Seconds with 6 decimals, exactly (a clock offset).
    case seconds(nanoseconds: Int64)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// `.number`, or `.null` when `value` is nil or not finite.
    public static func number(_ value: Double?, decimals: Int) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        return .number(value, decimals: decimals)
    }

    /// `.instant`, or `.null` when `instant` is nil.
    public static func instant(_ instant: RealtimeInstant?) -> JSONValue {
        instant.map { .instant($0) } ?? .null
    }

    var text: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .integer(let value): String(value)
        case .number(let value, let decimals): DecimalText.fixed(value, decimals: decimals) ?? "null"
        case .instant(let instant): instant.text
        case .seconds(let nanoseconds): DecimalText.seconds(nanoseconds: nanoseconds)
        case .string(let value): JSONValue.quoted(value)
        case .array(let values): "[" + values.map(\.text).joined(separator: ",") + "]"
        case .object(let object): object.text
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped; other
    /// characters (the LCD's `°`, `①`) left as UTF-8.
    static func quoted(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// A JSON object whose keys keep the order they were set in (each command's keys are documented
/// in the README in that order).
public struct JSONObject: Sendable, Equatable {
    public private(set) var members: [Member] = []

    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSONValue
    }

    public init() {}

    /// Sets `key`, replacing an earlier value in place.
    public mutating func set(_ key: String, _ value: JSONValue) {
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            members.append(Member(key: key, value: value))
        }
    }

    public subscript(key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }

    /// The object on one line, without spaces: `{"pressed_at":1764000000.123456,...}`.
    public var text: String {
        "{" + members.map { JSONValue.quoted($0.key) + ":" + $0.value.text }.joined(separator: ",") + "}"
    }
}
