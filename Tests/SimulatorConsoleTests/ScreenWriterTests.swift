import SimulatorConsole
import Testing

/// The redraw bytes: each line overwritten in place, the rest erased, nothing when unchanged.
@Suite struct ScreenWriterTests {
    private func text(_ bytes: [UInt8]?) -> String? {
        bytes.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func drawsEachLineInPlaceThenErasesTheRest() {
        var writer = ScreenWriter()
        #expect(text(writer.redraw(["ab", "", "│①│"])) == "\u{1B}[1;1Hab\u{1B}[K\u{1B}[2;1H\u{1B}[K\u{1B}[3;1H│①│\u{1B}[K\u{1B}[4;1H\u{1B}[J")
    }

    @Test func drawsNothingWhenNothingChanged() {
        var writer = ScreenWriter()
        #expect(writer.redraw(["07:42"]) != nil)
        #expect(writer.redraw(["07:42"]) == nil)
        #expect(text(writer.redraw(["07:43"])) == "\u{1B}[1;1H07:43\u{1B}[K\u{1B}[2;1H\u{1B}[J")
    }

    @Test func aKnownSizeCutsLinesAndLeavesFullOnesUnerased() {
        var writer = ScreenWriter()
        let size = TerminalSize(rows: 2, columns: 3)
        // "abc" fills the row: an erase there would wipe its last cell; the third line would scroll.
        #expect(text(writer.redraw(["abcd", "x", "y"], size: size)) == "\u{1B}[1;1Habc\u{1B}[2;1Hx\u{1B}[K")
        #expect(writer.redraw(["abcd", "x", "y"], size: size) == nil)
        // A resize redraws even the same lines.
        #expect(text(writer.redraw(["abcd", "x", "y"], size: TerminalSize(rows: 5, columns: 4)))
            == "\u{1B}[1;1Habcd\u{1B}[2;1Hx\u{1B}[K\u{1B}[3;1Hy\u{1B}[K\u{1B}[4;1H\u{1B}[J")
    }

    @Test func controlCharactersInTextCannotMoveTheCursor() {
        var writer = ScreenWriter()
        #expect(text(writer.redraw(["a\u{1B}[2J\tb\r"])) == "\u{1B}[1;1Ha?[2J?b?\u{1B}[K\u{1B}[2;1H\u{1B}[J")
    }
}
