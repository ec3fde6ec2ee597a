import Testing
@testable import VMProbeKit

@Suite struct HD44780DecoderTests {
    func decode(_ bytes: [UInt8], pins: BackpackPins = .common) -> HD44780Decoder {
        var decoder = HD44780Decoder(rows: 2, columns: 16, pins: pins)
        for byte in bytes { decoder.receive(byte) }
        return decoder
    }

    func text(_ decoder: HD44780Decoder) -> [String] {
        decoder.screen.map { LCDText.render($0) }
    }

    @Test func initialisationClearAndTwoRows() {
        var encoder = BackpackEncoder()
        encoder.initialise()
        encoder.write("07:00  Wake up", row: 0)
        encoder.write("ALARM!", row: 1, column: 5)
        let decoder = decode(encoder.bytes)
        #expect(text(decoder) == ["07:00  Wake up  ", "     ALARM!     "])
        #expect(decoder.initialised)
        #expect(decoder.displayOn)
        #expect(decoder.backlight == true)
        #expect(decoder.displayWrites == 20)
    }

    @Test func glyphUploadsDoNotTouchTheText() {
        var encoder = BackpackEncoder()
        encoder.initialise()
        encoder.write("Snooze", row: 0)
        encoder.defineGlyph(0, rows: [0x04, 0x0E, 0x0E, 0x0E, 0x1F, 0x00, 0x04, 0x00])
        encoder.defineGlyph(7, rows: [0x1F, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1F, 0x00])
        encoder.write("\u{0}", row: 1, column: 15)
        encoder.write("\u{7}", row: 1, column: 0)
        let decoder = decode(encoder.bytes)
        #expect(text(decoder) == ["Snooze          ", "⑧              ①"])
        #expect(decoder.screen[1][15] == 0)
        #expect(decoder.glyph(0) == [0x04, 0x0E, 0x0E, 0x0E, 0x1F, 0x00, 0x04, 0x00])
        #expect(decoder.displayWrites == 8)
        #expect(LCDText.render(decoder.screen[1], ascii: true) == "?              ?")
    }

    @Test func continuousWritesWrapFromTheFirstLineToTheSecond() {
        var encoder = BackpackEncoder()
        encoder.initialise()
        encoder.instruction(0x80 | 0x27)
        for code in "ab".utf8 { encoder.character(code) }
        #expect(decode(encoder.bytes).screen[1][0] == UInt8(ascii: "b"))
    }

    @Test func reinitialisingARunningDisplayResynchronises() {
        var encoder = BackpackEncoder()
        encoder.initialise()
        encoder.write("first", row: 0)
        // A lone nibble (a transfer cut short), then the driver starts over after an error.
        encoder.nibble(0x4, registerSelect: true)
        encoder.initialise()
        encoder.write("second", row: 1)
        #expect(text(decode(encoder.bytes)) == ["                ", "second          "])
    }

    @Test func startingMidStreamIsReported() {
        var encoder = BackpackEncoder()
        encoder.initialise()
        let start = encoder.bytes.count
        encoder.write("Hello", row: 0)
        let decoder = decode(Array(encoder.bytes[start...]))
        #expect(!decoder.initialised)
    }

    @Test func backlightAndDisplayOff() {
        var encoder = BackpackEncoder()
        encoder.initialise()
        encoder.write("Bye", row: 0)
        encoder.instruction(0x08)
        encoder.setBacklight(false)
        let decoder = decode(encoder.bytes)
        #expect(decoder.backlight == false)
        #expect(!decoder.displayOn)
        #expect(text(decoder)[0] == "Bye             ")
    }

    @Test func alternateWiring() {
        var encoder = BackpackEncoder(pins: .alternate)
        encoder.initialise()
        encoder.write("mjkdz", row: 1, column: 11)
        let decoder = decode(encoder.bytes, pins: .alternate)
        #expect(text(decoder) == ["                ", "           mjkdz"])
        #expect(decoder.backlight == true)
    }

    @Test func romCharactersRenderAsAlarmdPreviewsThem() {
        #expect(LCDText.render([0x37, 0xDF, 0x43, 0x5C, 0x7E, 0x10, 0xFF, 0x08]) == "7°C¥→██①")
    }
}
