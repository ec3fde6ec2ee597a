/// A wall-clock time of day in whole seconds, independent of any date or time zone.
///
/// Leap seconds do not exist here (POSIX time has none). `description` and `Codable` use `HH:MM:SS`;
/// decoding also accepts `HH:MM`.
public struct CivilTime: Hashable, Comparable, Sendable, Codable, CustomStringConvertible, LosslessStringConvertible {
    /// The hour, 0...23.
    public let hour: Int
    /// The minute, 0...59.
    public let minute: Int
    /// The second, 0...59.
    public let second: Int

    public static let midnight = CivilTime(secondsSinceMidnight: 0)

    /// Creates a time of day, or returns nil when a component is out of range.
    public init?(hour: Int, minute: Int, second: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Creates the time `seconds` after midnight; the value is reduced modulo one day so it never fails.
    public init(secondsSinceMidnight seconds: Int) {
        let reduced = ((seconds % 86_400) + 86_400) % 86_400
        hour = reduced / 3_600
        minute = reduced / 60 % 60
        second = reduced % 60
    }

    /// Seconds elapsed since 00:00:00, 0...86399.
    public var secondsSinceMidnight: Int {
        hour * 3_600 + minute * 60 + second
    }

    public static func < (lhs: CivilTime, rhs: CivilTime) -> Bool {
        lhs.secondsSinceMidnight < rhs.secondsSinceMidnight
    }

    /// The time as `HH:MM:SS`, e.g. "07:30:00".
    public var description: String {
        "\(TextDigits.pad2(hour)):\(TextDigits.pad2(minute)):\(TextDigits.pad2(second))"
    }

    /// Parses `HH:MM` or `HH:MM:SS` with two-digit fields; nil when malformed or out of range.
    public init?(_ description: String) {
        var scanner = TextScanner(description)
        guard let hour = scanner.integer(minDigits: 2, maxDigits: 2), scanner.consume(":"),
              let minute = scanner.integer(minDigits: 2, maxDigits: 2) else { return nil }
        var second = 0
        if scanner.consume(":") {
            guard let parsed = scanner.integer(minDigits: 2, maxDigits: 2) else { return nil }
            second = parsed
        }
        guard scanner.isAtEnd else { return nil }
        self.init(hour: hour, minute: minute, second: second)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let time = CivilTime(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "invalid time of day \"\(text)\"")
        }
        self = time
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
