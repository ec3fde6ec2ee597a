import AlarmHardware

/// The custom glyphs the appliance loads into the display's CGRAM, and the slots it uses. Drawn
/// on the HD44780's 5x8 cell; the bottom row is where the cursor would be, so it stays empty.
public enum DisplayIcon: Int, CaseIterable, Sendable {
    case bell = 0
    case snooze = 1
    case pause = 2
    case play = 3

    /// The CGRAM slot, which is also the character code that shows it.
    public var code: UInt8 { UInt8(rawValue) }

    public var glyph: Glyph {
        switch self {
        case .bell:
            Self.glyph(["..#..", ".###.", ".###.", ".###.", "#####", ".....", "..#..", "....."])
        case .snooze:
            Self.glyph(["###..", "..#..", ".#...", "###..", "..###", "...#.", "..###", "....."])
        case .pause:
            Self.glyph([".....", "##.##", "##.##", "##.##", "##.##", "##.##", ".....", "....."])
        case .play:
            Self.glyph(["#....", "##...", "###..", "####.", "###..", "##...", "#....", "....."])
        }
    }

    /// A glyph from rows drawn with `#` (on) and `.` (off).
    private static func glyph(_ rows: [String]) -> Glyph {
        let bits = rows.map { row in row.reduce(UInt8(0)) { ($0 << 1) | ($1 == "#" ? 1 : 0) } }
        guard let glyph = Glyph(rows: bits) else { preconditionFailure("icon art must be 8 rows of 5") }
        return glyph
    }

    /// The icon for a button's SF Symbols name, if the display has one: `alarm*` and `bell*` show
    /// the bell, `zzz*` and `moon*` snooze, `pause*` pause, `play*`, `repeat*` and
    /// `arrow.clockwise*` play; anything else (`stop.circle`) shows the text alone.
    public init?(systemImageName name: String) {
        switch name {
        case _ where name.hasPrefix("alarm") || name.hasPrefix("bell"): self = .bell
        case _ where name.hasPrefix("zzz") || name.hasPrefix("moon"): self = .snooze
        case _ where name.hasPrefix("pause"): self = .pause
        case _ where name.hasPrefix("play") || name.hasPrefix("repeat") || name.hasPrefix("arrow.clockwise"): self = .play
        default: return nil
        }
    }
}
