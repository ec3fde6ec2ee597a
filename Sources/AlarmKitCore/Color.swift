/// An sRGB colour, standing in for SwiftUI's `Color`, which Linux does not have.
///
/// An RGB indicator LED shows an alarm's tint; a monochrome display ignores colours.
public struct Color: Codable, Hashable, Sendable {
    /// 0 to 1.
    public var red: Double
    /// 0 to 1.
    public var green: Double
    /// 0 to 1.
    public var blue: Double

    /// Components outside 0...1 are clamped; NaN becomes 0.
    public init(red: Double, green: Double, blue: Double) {
        self.red = Self.clamped(red)
        self.green = Self.clamped(green)
        self.blue = Self.clamped(blue)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            red: try container.decode(Double.self, forKey: .red),
            green: try container.decode(Double.self, forKey: .green),
            blue: try container.decode(Double.self, forKey: .blue)
        )
    }

    private static func clamped(_ value: Double) -> Double {
        guard value.isFinite else { return value == .infinity ? 1 : 0 }
        return min(max(value, 0), 1)
    }

    public static let white = Color(red: 1, green: 1, blue: 1)
    public static let black = Color(red: 0, green: 0, blue: 0)
    public static let red = Color(red: 1, green: 0.23, blue: 0.19)
    public static let orange = Color(red: 1, green: 0.58, blue: 0)
    public static let yellow = Color(red: 1, green: 0.8, blue: 0)
    public static let green = Color(red: 0.2, green: 0.78, blue: 0.35)
    public static let blue = Color(red: 0, green: 0.48, blue: 1)
    public static let purple = Color(red: 0.69, green: 0.32, blue: 0.87)
}
