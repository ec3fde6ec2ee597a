import AlarmHardware
import AlarmLCD
import AlarmTestKit
import Synchronization
import Testing

/// The driver byte for byte against a recording bus, and the screen those bytes produce.
@Suite(.timeLimit(.minutes(5)))
struct HD44780DisplayTests {
    typealias Event = RecordingI2CBus.Event

    // MARK: - Initialisation

    @Test func initialisationFollowsTheDatasheetByteForByte() async throws {
        let rig = DisplayRig()
        try await rig.display.show(DisplayFrame(size: .sixteenByTwo))
        let events = rig.take()
        let s = { (byte: UInt8) in Event.sent(byte, to: 0x27) }
        #expect(events == [
            s(0x00), .delay(.milliseconds(50)),
            s(0x34), s(0x30), .delay(.milliseconds(5)),
            s(0x34), s(0x30), .delay(.microseconds(150)),
            s(0x34), s(0x30), s(0x24), s(0x20),
            s(0x24), s(0x20), s(0x84), s(0x80),
            s(0x04), s(0x00), s(0x84), s(0x80),
            s(0x04), s(0x00), s(0x14), s(0x10), .delay(.milliseconds(2)),
            s(0x04), s(0x00), s(0x64), s(0x60),
            s(0x04), s(0x00), s(0xC4), s(0xC0),
        ])
        #expect(events.sentBytes == commonInitialisation)
        #expect(rig.model.violations == [])
        #expect(rig.model.displayOn)
        #expect(rig.model.instructions == [0x28, 0x08, 0x01, 0x06, 0x0C])
        #expect(await rig.display.address == 0x27)
    }

    @Test func delaysAreAtLeastTheDatasheetsFigures() {
        let timing = HD44780Timing.datasheet
        #expect(timing.powerOn > .milliseconds(40))
        #expect(timing.firstReset > .microseconds(4_100))
        #expect(timing.secondReset > .microseconds(100))
        #expect(timing.instruction >= .microseconds(37 + 4))
        #expect(timing.clear >= .microseconds(1_520))
    }

    @Test func backlightOnSetsItsBitInEveryByteFromTheFirst() async throws {
        let rig = DisplayRig(backlight: true)
        try await rig.display.show(frame(.sixteenByTwo, "Hi"))
        let bytes = rig.take().sentBytes
        #expect(bytes.prefix(commonInitialisation.count) == ArraySlice(commonInitialisation.map { $0 | 0x08 }))
        #expect(bytes.allSatisfy { $0 & 0x08 != 0 })
        #expect(rig.model.backlightOn == true)
        #expect(rig.model.lines[0].hasPrefix("Hi "))
    }

    @Test func compatibilityTimingSendsTheSameBytesAndWaitsFourTimesLongerAfterEveryStep() async throws {
        let rig = DisplayRig(timing: .compatibility)
        try await rig.display.show(DisplayFrame(size: .sixteenByTwo))
        let events = rig.take()
        #expect(events.sentBytes == commonInitialisation)
        #expect(events.delays == [
            .milliseconds(200), .milliseconds(20), .microseconds(600),
            .microseconds(164), .microseconds(164),  // after the third 0x3 and after 0x2
            .microseconds(164), .microseconds(164), .milliseconds(8), .microseconds(164), .microseconds(164),
        ])
        #expect(rig.model.violations == [])

        // Characters and cursor moves wait too: one explicit wait per instruction.
        try await rig.display.show(frame(.sixteenByTwo, "", "     X"))
        let update = rig.take()
        #expect(update.delays == [.microseconds(164), .microseconds(164)])
    }

    // MARK: - Cursor moves and changed cells

    @Test func cursorMoveToRowOneColumnFiveOf16x2IsSetAddress0x45() async throws {
        let rig = DisplayRig()
        try await rig.initialise()
        try await rig.display.show(frame(.sixteenByTwo, "", "     X"))
        #expect(rig.take().sentBytes == [
            0xC4, 0xC0, 0x54, 0x50,  // 0x80 | 0x45, RS already low
            0x51, 0x55, 0x51, 0x85, 0x81,  // RS up first, then 'X' (0x58)
        ])
        #expect(rig.model.cursorMoves == [0x45])
        #expect(rig.model.lines == ["                ", "     X          "])
        #expect(rig.model.violations == [])
    }

    @Test func cursorMoveToTheFourthRowOf20x4IsSetAddress0x54() async throws {
        let rig = DisplayRig(size: .twentyByFour)
        try await rig.initialise()
        try await rig.display.show(frame(.twentyByFour, "", "", "", "X"))
        #expect(rig.take().sentBytes == [0xD4, 0xD0, 0x44, 0x40, 0x51, 0x55, 0x51, 0x85, 0x81])
        #expect(rig.model.cursorMoves == [0x54])
        #expect(rig.model.lines[3] == "X" + String(repeating: " ", count: 19))
    }

    @Test func oneChangedCellCostsOneCursorMoveAndOneCharacter() async throws {
        let rig = DisplayRig()
        try await rig.initialise()
        try await rig.display.show(frame(.sixteenByTwo, "Hello"))
        _ = rig.take()
        rig.model.clearLog()

        try await rig.display.show(frame(.sixteenByTwo, "Hallo"))
        #expect(rig.take().sentBytes == [
            0x80, 0x84, 0x80, 0x14, 0x10,  // RS down, then Set DDRAM Address 0x01
            0x61, 0x65, 0x61, 0x15, 0x11,  // RS up, then 'a' (0x61)
        ])
        #expect(rig.model.instructions == [0x81])
        #expect(rig.model.characters == Array("a".utf8))
        #expect(rig.model.lines[0].hasPrefix("Hallo "))
        #expect(rig.model.violations == [])
    }

    @Test func anUnchangedFrameSendsNothing() async throws {
        let rig = DisplayRig()
        try await rig.display.show(frame(.sixteenByTwo, "07:00"))
        _ = rig.take()
        try await rig.display.show(frame(.sixteenByTwo, "07:00"))
        #expect(rig.take() == [])
    }

    @Test func oneUnchangedCellBetweenChangesIsRewrittenAndTwoAreSkipped() async throws {
        let rig = DisplayRig()
        try await rig.initialise()
        try await rig.display.show(frame(.sixteenByTwo, "abcdefghij"))
        _ = rig.take()
        rig.model.clearLog()

        try await rig.display.show(frame(.sixteenByTwo, "aXcXefghij"))  // b and d change, c between
        _ = rig.take()
        #expect(rig.model.cursorMoves == [0x01])
        #expect(rig.model.characters == Array("XcX".utf8))

        rig.model.clearLog()
        try await rig.display.show(frame(.sixteenByTwo, "aXcXeYghZj"))  // f and i change, g h between
        _ = rig.take()
        #expect(rig.model.cursorMoves == [0x05, 0x08])
        #expect(rig.model.characters == Array("YZ".utf8))
        #expect(rig.model.lines[0].hasPrefix("aXcXeYghZj "))

        // A run that starts where the last one ended needs no move: the address counter is there.
        rig.model.clearLog()
        try await rig.display.show(frame(.sixteenByTwo, "aXcXeYghZQ"))
        _ = rig.take()
        #expect(rig.model.cursorMoves == [])
        #expect(rig.model.characters == Array("Q".utf8))
        #expect(rig.model.violations == [])
    }

    @Test func aCountdownTickRewritesFourCellsAfterOneCursorMove() async throws {
        let rig = DisplayRig()
        try await rig.initialise()
        try await rig.display.show(frame(.sixteenByTwo, "Snooze", "Rings in 05:00"))
        _ = rig.take()
        rig.model.clearLog()

        try await rig.display.show(frame(.sixteenByTwo, "Snooze", "Rings in 04:59"))
        let bytes = rig.take().sentBytes
        // '5'→'4', ':' kept, '0'→'5', '0'→'9': one move to 0x4A, then "4:59".
        #expect(rig.model.cursorMoves == [0x4A])
        #expect(rig.model.characters == Array("4:59".utf8))
        let expected: Int = 1 + 4 + 1 + 4 * 4  // RS down, move, RS up, 4 characters
        #expect(bytes.count == expected)
        #expect(rig.model.lines == ["Snooze          ", "Rings in 04:59  "])
    }

    @Test func a20x4FrameRunsRowOneIntoRowThreeAndRowTwoIntoRowFour() async throws {
        let rig = DisplayRig(size: .twentyByFour)
        try await rig.initialise()
        let rows = ["ABCDEFGHIJKLMNOPQRST", "abcdefghijklmnopqrst", "0123456789!#$%&()*+,", "UVWXYZuvwxyz<=>?@[]^"]
        let first = frame(.twentyByFour, rows[0], rows[1], rows[2], rows[3])
        try await rig.display.show(first)
        let bytes = rig.take().sentBytes
        // Clear left the address counter at 0x00: rows 1 and 3 (0x00-0x27) need no move at all,
        // rows 2 and 4 (0x40-0x67) one.
        #expect(rig.model.cursorMoves == [0x40])
        let expected: Int = 80 * 4 + 2 + (1 + 4)  // characters, RS up twice, RS down and a move
        #expect(bytes.count == expected)
        #expect(rig.model.lines == rows)

        rig.model.clearLog()
        let second = frame(.twentyByFour, rows[3], rows[2], rows[1], rows[0])
        try await rig.display.show(second)
        let again = rig.take().sentBytes
        #expect(rig.model.cursorMoves == [0x00, 0x40])
        let expectedAgain: Int = 2 * (1 + 4 + 1 + 40 * 4)
        #expect(again.count == expectedAgain)
        #expect(rig.model.lines == [rows[3], rows[2], rows[1], rows[0]])
        #expect(rig.model.violations == [])
    }

    @Test func aFrameOfAnotherSizeIsCroppedAndPadded() async throws {
        let rig = DisplayRig()
        try await rig.display.show(frame(.twentyByFour, "ABCDEFGHIJKLMNOPQRST", "x", "never shown"))
        _ = rig.take()
        #expect(rig.model.lines == ["ABCDEFGHIJKLMNOP", "x               "])
    }

    // MARK: - Glyphs and backlight

    @Test func aGlyphIsWrittenToCharacterRAMAndTheNextFrameMovesTheCursorBack() async throws {
        let rig = DisplayRig()
        try await rig.initialise()
        let bell = try #require(Glyph(rows: [0x04, 0x0E, 0x0E, 0x0E, 0x1F, 0x00, 0x04, 0x00]))
        try await rig.display.define(bell, slot: 2)
        let bytes = rig.take().sentBytes
        #expect(bytes == [
            0x54, 0x50, 0x04, 0x00,  // Set CGRAM Address 0x40 | 2 << 3 = 0x50
            0x01, 0x05, 0x01, 0x45, 0x41,  // RS up, row 0x04
            0x05, 0x01, 0xE5, 0xE1,  // 0x0E
            0x05, 0x01, 0xE5, 0xE1,
            0x05, 0x01, 0xE5, 0xE1,
            0x15, 0x11, 0xF5, 0xF1,  // 0x1F
            0x05, 0x01, 0x05, 0x01,  // 0x00
            0x05, 0x01, 0x45, 0x41,  // 0x04
            0x05, 0x01, 0x05, 0x01,  // 0x00
        ])
        #expect(rig.model.glyph(slot: 2) == bell.rows)

        // The address counter is in character RAM now: the next frame starts with a move, even at 0x00.
        rig.model.clearLog()
        try await rig.display.show(frame(.sixteenByTwo, "\u{2}"))
        _ = rig.take()
        #expect(rig.model.cursorMoves == [0x00])
        #expect(rig.model.screen[0][0] == 2)

        // The same glyph again changes nothing.
        try await rig.display.define(bell, slot: 2)
        #expect(rig.take() == [])
        #expect(rig.model.violations == [])
    }

    @Test func theBacklightTogglesWithOneByteThatChangesOnlyItsBit() async throws {
        let rig = DisplayRig()
        try await rig.display.show(frame(.sixteenByTwo, "A"))
        _ = rig.take()
        try await rig.display.setBacklight(true)
        #expect(rig.take().sentBytes == [0x19])  // 'A' = 0x41 left the outputs at 0x11
        #expect(rig.model.backlightOn == true)

        try await rig.display.show(frame(.sixteenByTwo, "B"))
        #expect(rig.take().sentBytes.allSatisfy { $0 & 0x08 != 0 })

        try await rig.display.setBacklight(false)
        #expect(rig.take().sentBytes == [0x21])  // 'B' = 0x42 left 0x29
        try await rig.display.setBacklight(false)
        #expect(rig.take() == [])
        #expect(rig.model.backlightOn == false)
    }

    @Test func theAlternateMjkdzWiringPutsDataOnTheLowOutputsAndLightsTheBacklightLow() async throws {
        let rig = DisplayRig(wiring: .alternate)
        try await rig.display.show(frame(.sixteenByTwo, "A"))
        let bytes = rig.take().sentBytes
        // E is P4, RS P6, D4-D7 P0-P3; P7 high keeps the backlight dark.
        #expect(bytes == [
            0x80,
            0x93, 0x83, 0x93, 0x83, 0x93, 0x83, 0x92, 0x82,
            0x92, 0x82, 0x98, 0x88,
            0x90, 0x80, 0x98, 0x88,
            0x90, 0x80, 0x91, 0x81,
            0x90, 0x80, 0x96, 0x86,
            0x90, 0x80, 0x9C, 0x8C,
            0xC4, 0xD4, 0xC4, 0xD1, 0xC1,  // RS up, 'A' = 0x41
        ])
        #expect(rig.model.lines[0].hasPrefix("A "))
        #expect(rig.model.backlightOn == false)

        try await rig.display.setBacklight(true)
        #expect(rig.take().sentBytes == [0x41])
        #expect(rig.model.backlightOn == true)
        #expect(rig.model.violations == [])
    }

    // MARK: - Finding the display, losing it, getting it back

    @Test func probingAsks0x27Then0x3FAndUsesTheOneThatAnswers() async throws {
        let rig = DisplayRig(address: .automatic, answering: [0x3F])
        try await rig.display.show(frame(.sixteenByTwo, "Hi"))
        let events = rig.take()
        #expect(Array(events.prefix(2)) == [.received(from: 0x27), .received(from: 0x3F)])
        let rest = Array(events.dropFirst(2))
        #expect(rest.allSatisfy { if case .sent(_, let address) = $0 { address == 0x3F } else { true } })
        #expect(rest.sentBytes.prefix(commonInitialisation.count) == ArraySlice(commonInitialisation))
        #expect(await rig.display.address == 0x3F)
        #expect(rig.model.lines[0].hasPrefix("Hi "))
    }

    @Test func probingThatFindsNothingThrowsDeviceUnavailableNamingBothAddresses() async throws {
        let rig = DisplayRig(address: .automatic, answering: [])
        let error = await #expect(throws: HardwareError.self) {
            try await rig.display.show(frame(.sixteenByTwo, "Hi"))
        }
        #expect(error?.kind == .deviceUnavailable)
        #expect(error?.device == "/dev/i2c-test@0x27,0x3F")
        #expect(rig.take() == [.received(from: 0x27), .received(from: 0x3F)])

        // Plugged in later: the next call finds it.
        rig.bus.setAnswering([0x27])
        try await rig.display.show(frame(.sixteenByTwo, "Hi"))
        #expect(await rig.display.address == 0x27)
    }

    @Test func afterAnErrorTheNextShowInitialisesAgainUploadsGlyphsAndRedrawsEverything() async throws {
        let rig = DisplayRig()
        let bell = try #require(Glyph(rows: [0x04, 0x0E, 0x0E, 0x0E, 0x1F, 0x00, 0x04, 0x00]))
        try await rig.display.define(bell, slot: 0)
        try await rig.display.setBacklight(true)
        try await rig.display.show(frame(.sixteenByTwo, "\u{0} 07:00", "Snooze 05:00"))
        _ = rig.take()

        rig.bus.failSends(after: 3)
        let error = await #expect(throws: HardwareError.self) {
            try await rig.display.show(frame(.sixteenByTwo, "\u{0} 07:00", "Snooze 04:59"))
        }
        #expect(error?.kind == .noAcknowledge)
        #expect(await rig.display.address == nil)
        _ = rig.take()

        // Unplugged meanwhile: the LCD lost its memory. The backpack answers again.
        rig.model = HD44780Model(size: .sixteenByTwo)
        rig.bus.heal()
        rig.model.clearLog()
        try await rig.display.show(frame(.sixteenByTwo, "\u{0} 07:00", "Snooze 04:58"))
        let bytes = rig.take().sentBytes
        #expect(bytes.prefix(commonInitialisation.count) == ArraySlice(commonInitialisation.map { $0 | 0x08 }))
        #expect(rig.model.glyph(slot: 0) == bell.rows)
        #expect(rig.model.lines == ["① 07:00" + String(repeating: " ", count: 9), "Snooze 04:58    "])
        #expect(rig.model.backlightOn == true)
        #expect(rig.model.violations == [])
    }
}

/// Where the driver's transfers run.
@Suite(.timeLimit(.minutes(5)))
struct HD44780DisplayThreadTests {
    /// Notes the name of the thread each transfer runs on.
    final class ThreadNamingBus: I2CBus {
        let name = "/dev/i2c-test"
        let names = Mutex<Set<String>>([])

        func sendByte(_ byte: UInt8, to address: UInt8) throws(HardwareError) { note() }
        func receiveByte(from address: UInt8) throws(HardwareError) -> UInt8 { note(); return 0 }

        private func note() {
            let name = TestFiles.read("/proc/thread-self/comm").map { String(decoding: $0, as: UTF8.self) }
            names.withLock { _ = $0.insert(name ?? "?") }
        }
    }

    @Test func transfersRunOnTheDisplaysOwnThreadNotTheCooperativePool() async throws {
        let bus = ThreadNamingBus()
        let recorder = RecordingI2CBus()  // a delay that does not sleep
        let display = HD44780Display(size: .sixteenByTwo, bus: bus, delay: recorder)
        try await display.show(frame(.sixteenByTwo, "Hi"))
        try await display.setBacklight(true)
        #expect(bus.names.withLock { $0 } == ["alarmd-lcd\n"])
    }
}

/// What another program drew on the LCD (a self-test run on its own) is replaced whole once the
/// driver forgets its contents; without that it would rewrite only the cells it believes changed.
@Suite struct HD44780ForgetContentsTests {
    @Test func afterForgettingItsContentsTheNextFrameReplacesAnotherProgramsScreenWhole() async throws {
        let rig = DisplayRig()
        let clock = frame(.sixteenByTwo, "07:00", "Wake up")
        try await rig.display.show(clock)
        _ = rig.take()
        let other = DisplayRig()
        try await other.display.show(frame(.sixteenByTwo, "alarmd self-test", "0123456789"))
        rig.model.feed(other.bus.take())
        #expect(rig.model.lines[0] == "alarmd self-test")

        try await rig.display.show(clock)
        #expect(rig.take() == [], "the driver believes the clock is still shown")
        await rig.display.forgetContents()
        try await rig.display.show(clock)
        _ = rig.take()
        #expect(rig.model.lines == ["07:00           ", "Wake up         "])
        #expect(rig.model.violations == [])
    }
}
