import AlarmHardware
import AlarmSimulator
import FoundationEssentials
import Testing

/// The fakes keep real state, report every change on streams, and fail on request.
@Suite(.timeLimit(.minutes(5))) struct FakeHardwareTests {
    @Test func buttonEventsCarryTheManualClocksMonotonicTime() async {
        let clock = ManualWallClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let buttons = FakeButtonInput(clock: clock)
        var events = buttons.events().makeAsyncIterator()
        let start = clock.monotonicNow
        buttons.press(.stop)
        clock.advance(by: 2)
        buttons.release(.stop)
        #expect(await events.next() == ButtonEvent(.stop, .pressed, at: start))
        #expect(await events.next() == ButtonEvent(.stop, .released, at: start + .seconds(2)))
    }

    @Test func audioRecordsPlaybackAndFailsOnRequest() async throws {
        let audio = FakeAudioOutput()
        var events = audio.events().makeAsyncIterator()
        var faults = audio.failures().makeAsyncIterator()
        let ramp = GainRamp(from: -40, to: -6, over: .seconds(30))
        let busy = HardwareError(.busy, device: "hw:0")

        audio.failNextPlay(with: busy)
        await #expect(throws: busy) { try await audio.play(.file("/sounds/birds.wav"), gain: ramp, looping: true) }
        #expect(await events.next() == .refused(.file("/sounds/birds.wav"), busy))
        #expect(audio.nowPlaying == nil)

        try await audio.play(.builtInTone, gain: ramp, looping: true)
        #expect(await events.next() == .started(.builtInTone, gain: ramp, looping: true))
        #expect(audio.nowPlaying?.source == .builtInTone)

        let gone = HardwareError(.deviceUnavailable, device: "hw:0")
        audio.failWhilePlaying(with: gone)
        #expect(await events.next() == .failed(gone))
        #expect(await faults.next() == gone)
        #expect(audio.nowPlaying == nil)

        try await audio.play(.builtInTone, gain: .constant(-6), looping: false)
        _ = await events.next()
        await audio.stop()
        await audio.stop()  // stopping something silent is no event
        #expect(await events.next() == .stopped)
        audio.setUnavailable(gone)
        await #expect(throws: gone) { try await audio.play(.builtInTone, gain: .constant(0), looping: true) }
    }

    @Test func theDisplayKeepsItsGridBacklightAndGlyphs() async throws {
        let display = FakeCharacterDisplay(size: .twentyByFour)
        var events = display.events().makeAsyncIterator()
        var frame = DisplayFrame(size: .twentyByFour)
        frame.write(HD44780Text.encode("Wake up"), row: 0)
        frame.write([0], row: 1)
        let bell = try #require(Glyph(rows: [4, 14, 14, 14, 31, 0, 4, 0]))
        try await display.define(bell, slot: 0)
        try await display.show(frame)
        try await display.setBacklight(true)
        #expect(await events.next() == .glyph(slot: 0, bell))
        #expect(await events.next() == .frame(frame))
        #expect(await events.next() == .backlight(true))
        #expect(display.lines[0] == "Wake up             ")
        #expect(display.lines[1].hasPrefix("①"))
        #expect(display.isBacklightOn)

        let silent = HardwareError(.noAcknowledge, device: "/dev/i2c-1@0x27")
        display.setUnavailable(silent)
        await #expect(throws: silent) { try await display.setBacklight(false) }
        #expect(display.isBacklightOn, "a display that does not answer keeps what it showed")
    }

    @Test func theIndicatorShowsPatternsAndFailsOnRequest() async throws {
        let led = FakeIndicator(hasColor: true)
        var events = led.events().makeAsyncIterator()
        let blink = IndicatorPattern.blink(.white, on: .milliseconds(500), off: .milliseconds(500))
        try await led.show(blink)
        #expect(await events.next() == blink)
        led.failNextShow(with: HardwareError(.io, device: "gpiochip0:27"))
        await #expect(throws: HardwareError.self) { try await led.show(.off) }
        #expect(led.pattern == blink)
    }

    @Test func fakesReportWhatATestSetUpButNothingUsed() async throws {
        let clock = ManualWallClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let fault = HardwareError(.io, device: "test")

        let audio = FakeAudioOutput()
        audio.failNextPlay(with: fault)
        #expect(audio.leftovers().count == 1)
        await #expect(throws: HardwareError.self) { try await audio.play(.builtInTone, gain: .constant(0), looping: false) }
        #expect(audio.leftovers() == [])

        let led = FakeIndicator()
        led.failNextShow(with: fault)
        #expect(led.leftovers().count == 1)
        await #expect(throws: HardwareError.self) { try await led.show(.off) }
        #expect(led.leftovers() == [])

        let buttons = FakeButtonInput(clock: clock)
        buttons.press(.stop)
        #expect(buttons.leftovers().count == 1)
        let listener = buttons.events()
        buttons.release(.stop)
        var events = listener.makeAsyncIterator()
        #expect(await events.next()?.edge == .released)
        #expect(buttons.leftovers().count == 1, "the press before anyone listened stays a leftover")
    }
}
