import AlarmHardware
import SimulatorConsole
import Testing

/// The simulator's screen, composed as exact text lines.
@Suite struct SimulatorScreenTests {
    let orange = IndicatorColor(red: 1, green: 0.5, blue: 0)

    @Test func sixteenByTwoWithEverythingGoingOn() {
        let state = SimulatorScreen.State(
            lcdSize: .sixteenByTwo,
            lcdLines: ["     07:42      ", "①Mon 07:00      "],
            backlight: false,
            ledPattern: .blink(orange, on: .milliseconds(250), off: .milliseconds(250)),
            ledHasColor: true,
            sound: .playing(.builtInTone, decibels: -12.34, rampingTo: -6),
            clock: "Mon 2 Mar 07:42:10",
            speed: 60,
            log: ["07:41:00 alarm scheduled"])
        #expect(SimulatorScreen.lines(for: state) == [
            "alarmd --simulate   Mon 2 Mar 07:42:10   speed 60x",
            "",
            "┌────────────────┐",
            "│     07:42      │",
            "│①Mon 07:00      │",
            "└────────────────┘  backlight: off",
            "LED: blinking 250/250 ms (colour #FF8000)",
            "Sound: playing built-in tone, -12.3 dB (ramping to -6 dB)",
            "",
            "07:41:00 alarm scheduled",
            "",
            "Keys: s/S stop short/long   z/Z snooze short/long",
            "      y both held (yes)  a alarm in 1 min  t timer  q quit",
        ])
    }

    @Test func twentyByFourFromAFrameWithoutKeysOrLog() {
        var frame = DisplayFrame(size: .twentyByFour)
        frame.write(HD44780Text.encode("Mon 2 March 2026"), row: 0, column: 2)
        frame.write([0] + HD44780Text.encode(" 07:00 ") + [7], row: 1)
        frame.write(HD44780Text.encode("Garden 21°C ~ ok"), row: 2)
        let state = SimulatorScreen.State(
            lcdSize: frame.size,
            lcdLines: frame.codes.map(HD44780Text.preview),
            backlight: true,
            ledPattern: .off,
            ledHasColor: false,
            sound: .silent(wouldPlay: .builtInTone),
            clock: "Mon 2 Mar 06:59:30",
            speed: 0.5,
            keyHelp: [])
        #expect(SimulatorScreen.lines(for: state) == [
            "alarmd --simulate   Mon 2 Mar 06:59:30   speed 0.5x",
            "",
            "┌────────────────────┐",
            "│  Mon 2 March 2026  │",
            "│① 07:00 ⑧           │",
            "│Garden 21°C █ ok    │",
            "│                    │",
            "└────────────────────┘  backlight: on",
            "LED: off",
            "Sound: built-in tone (silent: no sound device)",
        ])
    }

    @Test func lcdLinesArePaddedAndCutToTheDisplay() {
        let state = SimulatorScreen.State(
            lcdSize: .sixteenByTwo, lcdLines: ["this line is far too long"], backlight: false,
            ledPattern: .off, ledHasColor: false, sound: .off, clock: "", speed: 1, keyHelp: [])
        #expect(Array(SimulatorScreen.lines(for: state)[2...5]) == [
            "┌────────────────┐",
            "│this line is far│",
            "│                │",
            "└────────────────┘  backlight: off",
        ])
    }

    @Test func onlyTheLatestLogLinesShow() {
        let log = (1...10).map { "line \($0)" }
        let state = SimulatorScreen.State(
            lcdSize: .sixteenByTwo, lcdLines: [], backlight: false, ledPattern: .off, ledHasColor: false,
            sound: .off, clock: "", speed: 1, log: log, keyHelp: [])
        #expect(Array(SimulatorScreen.lines(for: state).suffix(7)) == ["", "line 5", "line 6", "line 7", "line 8", "line 9", "line 10"])
    }

    @Test func theLEDInWords() {
        let text = SimulatorScreen.ledText
        #expect(text(.off, true) == "LED: off")
        #expect(text(.steady(.white), false) == "LED: on")
        #expect(text(.steady(orange), true) == "LED: on (colour #FF8000)")
        #expect(text(.blink(orange, on: .milliseconds(250), off: .milliseconds(750)), false) == "LED: blinking 250/750 ms")
        #expect(text(.flashes(.white, count: 3, pause: .seconds(2)), true) == "LED: 3 flashes, then 2000 ms dark (colour #FFFFFF)")
        #expect(text(.flashes(.white, count: 1, pause: .seconds(1)), false) == "LED: 1 flash, then 1000 ms dark")
        #expect(text(.breathe(orange, period: .seconds(4)), false) == "LED: breathing, 4000 ms period")
        let black = IndicatorColor(red: 0, green: 0, blue: 0)
        #expect(text(.steady(black), false) == "LED: on (black: stays dark)")
    }

    @Test func theSoundInWords() {
        let text = SimulatorScreen.soundText
        #expect(text(.off) == "Sound: off")
        #expect(text(.playing(.builtInTone, decibels: -12.34, rampingTo: -6)) == "Sound: playing built-in tone, -12.3 dB (ramping to -6 dB)")
        #expect(text(.playing(.file("/usr/share/alarmd/birds.wav"), decibels: -6, rampingTo: -6)) == "Sound: playing birds.wav, -6.0 dB")
        #expect(text(.playing(.builtInTone, decibels: -0.04, rampingTo: nil)) == "Sound: playing built-in tone, 0.0 dB")
        #expect(text(.playing(.builtInTone, decibels: -40, rampingTo: -6.5)) == "Sound: playing built-in tone, -40.0 dB (ramping to -6.5 dB)")
        #expect(text(.silent(wouldPlay: nil)) == "Sound: (silent: no sound device)")
        #expect(text(.failed("hw:0 busy")) == "Sound: failed: hw:0 busy")
    }
}
