/// The size of a character display, in characters.
public struct DisplaySize: Hashable, Sendable {
    public var columns: Int
    public var rows: Int

    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    public static let sixteenByTwo = DisplaySize(columns: 16, rows: 2)
    public static let twentyByFour = DisplaySize(columns: 20, rows: 4)
}

/// A full screen of character codes for an HD44780-style controller: codes 0-7 are the custom
/// glyphs, the rest index the character ROM (see ``HD44780Text``).
public struct DisplayFrame: Hashable, Sendable, CustomStringConvertible {
    public let size: DisplaySize
    /// `rows` rows of `columns` codes each.
    public private(set) var codes: [[UInt8]]

    public init(size: DisplaySize) {
        self.size = size
        codes = Array(repeating: Array(repeating: HD44780Text.space, count: size.columns), count: size.rows)
    }

    /// Writes `codes` into `row` from `column`, cut at the edge of the display.
    public mutating func write(_ text: [UInt8], row: Int, column: Int = 0) {
        guard (0..<size.rows).contains(row) else { return }
        for (offset, code) in text.enumerated() where (0..<size.columns).contains(column + offset) {
            codes[row][column + offset] = code
        }
    }

    /// Each row as text (see ``HD44780Text/preview(_:)``: custom glyphs show as `①`...`⑧`), for
    /// logs and test messages.
    public var description: String {
        codes.map { HD44780Text.preview($0) }.joined(separator: "\n")
    }
}

/// A custom 5x8 glyph: 8 rows of 5 pixels, the low 5 bits of each byte, top row first.
public struct Glyph: Hashable, Sendable {
    public let rows: [UInt8]

    /// `nil` unless there are exactly 8 rows of at most 5 bits.
    public init?(rows: [UInt8]) {
        guard rows.count == 8, rows.allSatisfy({ $0 < 32 }) else { return nil }
        self.rows = rows
    }
}

/// A character LCD.
///
/// Backends: `HD44780Display` over I2C, ``FakeCharacterDisplay`` in
/// `AlarmSimulator`. A display that does not answer must leave the alarm working: callers log
/// the error and carry on.
public protocol CharacterDisplay: Sendable {
    /// From the board profile.
    var size: DisplaySize { get }
    /// Shows `frame` (a backend may rewrite only the cells that changed).
    func show(_ frame: DisplayFrame) async throws
    func setBacklight(_ on: Bool) async throws
    /// Loads a custom glyph into `slot` (0...7); frames show it with the code `slot`.
    func define(_ glyph: Glyph, slot: Int) async throws
    /// Forgets what the display is believed to hold: the next calls write it whole (controller,
    /// glyphs, every cell, backlight), as after an error. For a screen someone else drew on (a
    /// self-test pattern), which a backend that rewrites only changed cells would leave half
    /// stale. Never throws: nothing is sent until the next call.
    func forgetContents() async
}

extension CharacterDisplay {
    /// A display that writes every frame whole has nothing to forget.
    public func forgetContents() async {}
}
