import AlarmHardware
import AlarmKitCore

/// What the device is doing, as far as the LED is concerned, most urgent first.
public enum IndicatorState: Hashable, Sendable {
    case alerting(tint: Color)
    case countingDown(tint: Color)
    case paused(tint: Color)
    /// No sound, no display, or no LED.
    case hardwareFault
    /// Alarms were missed and nobody has pressed a button since.
    case missedAlarm
    case idle
}

/// The LED pattern for each state: each one distinct even on a single-colour LED (the pattern,
/// not the colour, tells them apart), and on an RGB LED the alarm's tint for alarm states.
///
/// | State | Pattern |
/// |---|---|
/// | alerting | fast blink, 250 ms on, 250 ms off |
/// | counting down | slow breathing, 4 s |
/// | paused | steady |
/// | hardware fault | 3 red flashes, then 2 s dark |
/// | missed alarm | 2 amber flashes, then 4 s dark |
/// | idle | off: a bedroom is dark at night |
public enum IndicatorPolicy {
    public static let faultColor = IndicatorColor(red: 1, green: 0, blue: 0)
    public static let missedColor = IndicatorColor(red: 1, green: 0.5, blue: 0)

    public static func pattern(for state: IndicatorState) -> IndicatorPattern {
        switch state {
        case .alerting(let tint):
            .blink(color(tint), on: .milliseconds(250), off: .milliseconds(250))
        case .countingDown(let tint):
            .breathe(color(tint), period: .seconds(4))
        case .paused(let tint):
            .steady(color(tint))
        case .hardwareFault:
            .flashes(faultColor, count: 3, pause: .seconds(2))
        case .missedAlarm:
            .flashes(missedColor, count: 2, pause: .seconds(4))
        case .idle:
            .off
        }
    }

    /// An alarm's tint as the LED's colour; black (which would not light) shows as white.
    public static func color(_ tint: Color) -> IndicatorColor {
        if tint.red == 0, tint.green == 0, tint.blue == 0 { return .white }
        return IndicatorColor(red: tint.red, green: tint.green, blue: tint.blue)
    }
}
