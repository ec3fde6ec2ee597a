import AlarmHardware

/// A command typed at the simulator's keyboard.
public enum SimulatorKey: Hashable, Sendable {
    /// `s` (STOP) or `z` (SNOOZE): a short press.
    case shortPress(Button)
    /// `S` (STOP) or `Z` (SNOOZE): a long press.
    case longPress(Button)
    /// `y`: STOP and SNOOZE held together (a question's yes).
    case bothHeld
    /// `a`: schedule a demo alarm one minute ahead.
    case demoAlarm
    /// `t`: start a demo timer (two minutes).
    case demoTimer
    /// `q`, Ctrl-C, Ctrl-D, or the end of the input.
    case quit

    /// The key a single byte stands for, if any: letters are case-sensitive (`s` short, `S`
    /// long); Ctrl-C (3) and Ctrl-D (4) quit, since the raw terminal turns no key into a signal.
    public init?(byte: UInt8) {
        switch byte {
        case UInt8(ascii: "s"): self = .shortPress(.stop)
        case UInt8(ascii: "S"): self = .longPress(.stop)
        case UInt8(ascii: "z"): self = .shortPress(.snooze)
        case UInt8(ascii: "Z"): self = .longPress(.snooze)
        case UInt8(ascii: "y"): self = .bothHeld
        case UInt8(ascii: "a"): self = .demoAlarm
        case UInt8(ascii: "t"): self = .demoTimer
        case UInt8(ascii: "q"), 3, 4: self = .quit
        default: return nil
        }
    }

    /// The keys, for the bottom of the screen (plain ASCII, under 60 columns a line).
    public static let helpLines = [
        "Keys: s/S stop short/long   z/Z snooze short/long",
        "      y both held (yes)  a alarm in 1 min  t timer  q quit",
    ]
}
