import AlarmHardware

/// The simulator's whole screen as plain-text lines, composed from a value: a pure function, so
/// tests compare exact lines and `tmux capture-pane` shows the same text:
/// ```
/// alarmd --simulate   Mon 2 Mar 07:42:10   speed 60x
///
/// ┌────────────────┐
/// │     07:42      │
/// │①Mon 07:00      │
/// └────────────────┘  backlight: off
/// LED: blinking 250/250 ms (colour #FF8000)
/// Sound: playing built-in tone, -12.3 dB (ramping to -6 dB)
/// Light: 18% (looks 50%)
///
/// 07:41:00 alarm scheduled
///
/// Keys: s/S stop short/long   z/Z snooze short/long
///       y both held (yes)  a alarm in 1 min  t timer  q quit
/// ```
/// The LCD is its exact character grid, one terminal column per cell: every character
/// ``HD44780Text/preview(_:)`` produces (`①`...`⑧` for custom glyphs, `█`, `°`, arrows) is one
/// column wide in tmux and common terminals. States are in words, never only in colour.
public enum SimulatorScreen {
    public struct State: Hashable, Sendable {
        /// The LCD's size; ``lcdLines`` are padded or cut to it.
        public var lcdSize: DisplaySize
        /// Each LCD row as ``HD44780Text/preview(_:)`` renders it (`FakeCharacterDisplay.lines`).
        public var lcdLines: [String]
        public var backlight: Bool
        public var ledPattern: IndicatorPattern
        /// Whether the LED shows colours (then the screen names the colour).
        public var ledHasColor: Bool
        public var sound: Sound
        /// The sunrise light's output, 0 to 1; `nil` for a board without one.
        public var light: Double?
        /// The virtual wall-clock time, formatted by the caller (it knows the time zone).
        public var clock: String
        /// Virtual seconds per real second.
        public var speed: Double
        /// Recent log or status lines, oldest first; the screen shows the last ``logLineCount``.
        public var log: [String]
        /// The keys, at the bottom; `[]` when there is no keyboard.
        public var keyHelp: [String]

        public init(
            lcdSize: DisplaySize, lcdLines: [String], backlight: Bool,
            ledPattern: IndicatorPattern, ledHasColor: Bool, sound: Sound, light: Double? = nil,
            clock: String, speed: Double, log: [String] = [], keyHelp: [String] = SimulatorKey.helpLines
        ) {
            self.light = light
            self.lcdSize = lcdSize
            self.lcdLines = lcdLines
            self.backlight = backlight
            self.ledPattern = ledPattern
            self.ledHasColor = ledHasColor
            self.sound = sound
            self.clock = clock
            self.speed = speed
            self.log = log
            self.keyHelp = keyHelp
        }
    }

    public enum Sound: Hashable, Sendable {
        case off
        /// `source` is playing at `decibels` now, its crescendo heading for `rampingTo` (`nil`
        /// once it is steady).
        case playing(SoundSource, decibels: Double, rampingTo: Double?)
        /// There is no sound device: `wouldPlay` is what would be heard, if anything.
        case silent(wouldPlay: SoundSource?)
        case failed(String)
    }

    public static let logLineCount = 6

    /// The screen, one string per terminal line, each character one column wide.
    public static func lines(for state: State) -> [String] {
        var lines = ["alarmd --simulate   \(state.clock)   speed \(speedText(state.speed))", ""]
        lines += lcdBox(size: state.lcdSize, rows: state.lcdLines, backlight: state.backlight)
        lines.append(ledText(state.ledPattern, hasColor: state.ledHasColor))
        lines.append(soundText(state.sound))
        if let light = state.light { lines.append(lightText(light)) }
        let log = state.log.suffix(logLineCount)
        if !log.isEmpty {
            lines.append("")
            lines += log
        }
        if !state.keyHelp.isEmpty {
            lines.append("")
            lines += state.keyHelp
        }
        return lines
    }

    /// The LCD's grid in a box, with the backlight in words beside the bottom edge.
    static func lcdBox(size: DisplaySize, rows: [String], backlight: Bool) -> [String] {
        let border = String(repeating: "─", count: size.columns)
        var lines = ["┌" + border + "┐"]
        for row in 0..<size.rows {
            let text = row < rows.count ? Array(rows[row].prefix(size.columns)) : []
            let padded = String(text) + String(repeating: " ", count: size.columns - text.count)
            lines.append("│" + padded + "│")
        }
        lines.append("└" + border + "┘  backlight: " + (backlight ? "on" : "off"))
        return lines
    }
}
