/// What a configuration value must be, and how to turn the TOML value into it: a type check plus
/// any range or set of allowed words. ``ConfigReader`` adds the file, line and key to a refusal.
///
/// Write your own for values with several shapes (an address that is `"auto"` or a number):
/// `ConfigType(expected: "...") { value in ... }`.
public struct ConfigType<Value>: Sendable {
    /// What the value should be, with its article, for messages: "an integer from 0 to 7".
    public let expected: String
    public let convert: @Sendable (TOMLValue) -> Result<Value, ConfigRefusal>

    public init(expected: String, convert: @escaping @Sendable (TOMLValue) -> Result<Value, ConfigRefusal>) {
        self.expected = expected
        self.convert = convert
    }

    /// The refusal for a value of another type: "expected a string, found integer 5".
    public func mismatch(_ found: TOMLValue) -> ConfigRefusal {
        ConfigRefusal("expected \(expected), found \(Self.shown(found))")
    }

    /// A value shown with its type: `integer 5`, `string "x"`, `array [1, 2]`.
    public static func shown(_ value: TOMLValue) -> String {
        switch value {
        case .string: "string \(value)"
        case .integer: "integer \(value)"
        case .float: "float \(value)"
        case .boolean: "boolean \(value)"
        case .array: "array \(value)"
        }
    }
}

/// Why a value of the right key cannot be used. ``ConfigReader`` turns it into a ``ConfigError``.
public struct ConfigRefusal: Error, Hashable, Sendable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }
}

extension ConfigType where Value == String {
    /// Any string, including the empty one.
    public static var string: ConfigType<String> {
        ConfigType(expected: "a string") { value in
            guard case .string(let text) = value else { return .failure(ConfigType<String>.string.mismatch(value)) }
            return .success(text)
        }
    }

    public static var nonEmptyString: ConfigType<String> {
        ConfigType(expected: "a non-empty string") { value in
            guard case .string(let text) = value else { return .failure(ConfigType<String>.nonEmptyString.mismatch(value)) }
            return text.isEmpty ? .failure(ConfigRefusal("must not be empty")) : .success(text)
        }
    }

    /// One of `words`, compared exactly (case-sensitive).
    public static func word(_ words: [String]) -> ConfigType<String> {
        let list = words.map { TOMLValue.quoted($0) }.joined(separator: ", ")
        return ConfigType(expected: "one of \(list)") { value in
            guard case .string(let text) = value else { return .failure(ConfigType<String>.word(words).mismatch(value)) }
            guard words.contains(text) else { return .failure(ConfigRefusal("must be one of \(list); found \(value)")) }
            return .success(text)
        }
    }
}

extension ConfigType where Value: CaseIterable & RawRepresentable & Sendable, Value.RawValue == String {
    /// One of the raw values of `Value`, in declaration order in messages.
    public static func word(_: Value.Type) -> ConfigType<Value> {
        let words = ConfigType<String>.word(Value.allCases.map(\.rawValue))
        return ConfigType(expected: words.expected) { value in
            words.convert(value).map { Value(rawValue: $0)! }
        }
    }
}

extension ConfigType where Value == Int {
    /// An integer, within `range` if one is given.
    public static func integer(in range: ClosedRange<Int>? = nil) -> ConfigType<Int> {
        let expected = range.map { "an integer from \($0.lowerBound) to \($0.upperBound)" } ?? "an integer"
        return ConfigType(expected: expected) { value in
            guard case .integer(let number) = value else {
                return .failure(ConfigRefusal("expected \(expected), found \(ConfigType<Int>.shown(value))"))
            }
            if let range, !range.contains(number) {
                return .failure(ConfigRefusal("must be from \(range.lowerBound) to \(range.upperBound), found \(number)"))
            }
            return .success(number)
        }
    }
}

extension ConfigType where Value == Double {
    /// A number (an integer is accepted as well), within `range` if one is given.
    public static func number(in range: ClosedRange<Double>? = nil) -> ConfigType<Double> {
        let expected = range.map { "a number from \($0.lowerBound) to \($0.upperBound)" } ?? "a number"
        return ConfigType(expected: expected) { value in
            let number: Double
            switch value {
            case .float(let float): number = float
            case .integer(let integer): number = Double(integer)
            default: return .failure(ConfigRefusal("expected \(expected), found \(ConfigType<Double>.shown(value))"))
            }
            if let range, !range.contains(number) {
                return .failure(ConfigRefusal("must be from \(range.lowerBound) to \(range.upperBound), found \(value)"))
            }
            return .success(number)
        }
    }
}

extension ConfigType where Value == Bool {
    public static var boolean: ConfigType<Bool> {
        ConfigType(expected: "true or false") { value in
            guard case .boolean(let flag) = value else { return .failure(ConfigType<Bool>.boolean.mismatch(value)) }
            return .success(flag)
        }
    }
}
