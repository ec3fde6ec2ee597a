/// What the indicator LED shows: a steady light or a timed pattern, in a colour where the LED has
/// colours.
public enum IndicatorPattern: Hashable, Sendable {
    case off
    case steady(IndicatorColor)
    /// On for `on`, off for `off`, repeated.
    case blink(IndicatorColor, on: Duration, off: Duration)
    /// `count` short flashes, then a pause, repeated (a missed alarm, a fault).
    case flashes(IndicatorColor, count: Int, pause: Duration)
    /// A slow breathing glow (where the LED can dim; otherwise a slow blink).
    case breathe(IndicatorColor, period: Duration)
}

/// An sRGB colour for the LED, each component 0...1. A single-colour LED lights for any colour
/// but black.
public struct IndicatorColor: Hashable, Sendable {
    public var red: Double, green: Double, blue: Double

    public init(red: Double, green: Double, blue: Double) {
        self.red = min(max(red, 0), 1)
        self.green = min(max(green, 0), 1)
        self.blue = min(max(blue, 0), 1)
    }

    public static let white = IndicatorColor(red: 1, green: 1, blue: 1)
}

/// The indicator LED.
///
/// Backends: `GPIODIndicator`, ``FakeIndicator`` in `AlarmSimulator`. The
/// backend plays the pattern itself, timed by its own thread or timer, never by a busy loop, so
/// the appliance does not wake up for each blink.
public protocol Indicator: Sendable {
    /// RGB, rather than only light.
    var hasColor: Bool { get }
    /// Replaces the pattern shown.
    /// - Throws: ``HardwareError`` if the LED cannot be driven; the previous pattern may remain.
    func show(_ pattern: IndicatorPattern) async throws
}
