import AlarmHardware
import Testing

@Suite struct HD44780TextTests {
    @Test func asciiPassesThroughExceptWhereTheROMDiffers() {
        #expect(HD44780Text.encode("Wake up 07:00!") == Array("Wake up 07:00!".utf8))
        #expect(HD44780Text.encode("a\\b~c") == [0x61, 0xFF, 0x62, 0xFF, 0x63])
    }

    static let table: [(String, [UInt8])] = [
        ("Café", Array("Cafe".utf8)),
        ("Crème brûlée", Array("Creme brulee".utf8)),
        ("Zürich", [0x5A, 0xF5, 0x72, 0x69, 0x63, 0x68]),
        ("Größe", [0x47, 0x72, 0xEF, 0xE2, 0x65]),
        ("Ärger", Array("Arger".utf8)),
        ("Łódź", Array("Lodz".utf8)),
        ("señor", [0x73, 0x65, 0xEE, 0x6F, 0x72]),
        ("20°C", [0x32, 0x30, 0xDF, 0x43]),
        ("Æble", Array("AEble".utf8)),
        ("“Tea” – now…", Array("\"Tea\" - now...".utf8)),
        ("e\u{301}", Array("e".utf8)),             // decomposed é: the combining accent folds away
        ("Tab\there", Array("Tab here".utf8)),
        ("Wake ⏰ up", Array("Wake ".utf8) + [0xFF] + Array(" up".utf8)),
        ("東京", [0xFF, 0xFF]),
    ]

    @Test(arguments: table)
    func textIsMappedToTheCharacterROM(_ text: String, _ codes: [UInt8]) {
        #expect(HD44780Text.encode(text) == codes)
    }

    @Test func previewShowsWhatTheDisplayShows() {
        #expect(HD44780Text.preview(HD44780Text.encode("Größe 20°C")) == "Größe 20°C")
        #expect(HD44780Text.preview([0, 7, 0x5C, 0xFF]) == "①⑧¥█")
    }
}

@Suite struct DisplayAndSoundValueTests {
    @Test func aFrameCutsTextAtTheEdgeAndIgnoresRowsOutside() {
        var frame = DisplayFrame(size: .sixteenByTwo)
        frame.write(HD44780Text.encode("A title longer than sixteen"), row: 0)
        frame.write(HD44780Text.encode("07:00"), row: 1, column: 11)
        frame.write(HD44780Text.encode("lost"), row: 2)
        #expect(frame.description == "A title longer t\n           07:00")
    }

    @Test func glyphsAreEightRowsOfFivePixels() {
        #expect(Glyph(rows: [4, 14, 14, 14, 31, 0, 4, 0]) != nil)
        #expect(Glyph(rows: [4, 14, 14]) == nil)
        #expect(Glyph(rows: [32, 0, 0, 0, 0, 0, 0, 0]) == nil)
    }

    @Test func aCrescendoRampsInDecibelsAndHoldsItsTarget() {
        let ramp = GainRamp(from: -40, to: -6, over: .seconds(30))
        #expect(ramp.decibels(after: .zero) == -40)
        #expect(ramp.decibels(after: .seconds(15)) == -23)
        #expect(ramp.decibels(after: .seconds(30)) == -6)
        #expect(ramp.decibels(after: .seconds(300)) == -6)
        #expect(abs(GainRamp.amplitude(decibels: -6) - 0.501) < 0.001)
        #expect(GainRamp.amplitude(decibels: 0) == 1)
        #expect(GainRamp.constant(-12).decibels(after: .seconds(1)) == -12)
    }

    @Test func hardwareErrorsNameTheDevice() {
        #expect("\(HardwareError(.busy, device: "hw:0", errno: 16))" == "hw:0: busy (Device or resource busy, errno 16)")
        #expect("\(HardwareError(.noAcknowledge, device: "/dev/i2c-1@0x27"))" == "/dev/i2c-1@0x27: not answering")
    }
}
