import AlarmAppliance
import AlarmDaemon
import AlarmHardware
import AlarmTime
import FoundationEssentials
import Glibc
import LinuxSupport

/// The parts a self-test checks, opened from a board profile. A part that could not even be
/// opened carries the error instead.
struct SelfTestParts: Sendable {
    var indicator: Result<any Indicator, HardwareError>
    var display: Result<any CharacterDisplay, HardwareError>
    var audio: Result<any AudioOutput, HardwareError>
    var buttons: Result<any ButtonInput, HardwareError>
    /// The sunrise light; `nil` on a board without one.
    var light: Result<any DimmableLight, HardwareError>?
    /// The simulated board: its buttons are the simulator's keys, nobody can press them here.
    var simulated = false
    /// The hardware volume control the profile names, if it names one: its range, or why not.
    var mixer: Result<ClosedRange<Double>, HardwareError>?

    /// A GPIO line found busy: another program (most likely a running alarmd) holds the board.
    var gpioHeldElsewhere: HardwareError? {
        for case .failure(let error) in [indicator.map { _ in () }, buttons.map { _ in () }] where error.kind == .busy {
            return error
        }
        return nil
    }
}

enum BoardPart: String, CaseIterable, Sendable {
    case led, display, light, sound, buttons, rtc

    /// The parts a daemon holds, checked through it when it runs; the RTC is only read (sysfs),
    /// so the command checks it itself either way (``RTCCheck``).
    static let held: [BoardPart] = [.led, .display, .light, .sound, .buttons]
}

struct PartResult: Sendable {
    var part: BoardPart
    var passed: Bool
    /// What was seen: "blinked", or the cause of a failure.
    var detail: String
    /// What a person should try, for a failure.
    var hint: String?
}

/// `alarmd selftest`: walks a person through the board, part by part, and reports what worked;
/// each failure with its cause and a hint. Without a person (`--non-interactive`) it runs the
/// output checks only (the drivers must accept the LED pattern, the frame and the tone) and skips
/// the buttons.
struct SelfTestRun {
    let parts: SelfTestParts
    let only: Set<BoardPart>
    /// Who answers the questions; `nil` when nobody is there (`--non-interactive`).
    let person: TerminalPerson?
    let say: @Sendable (String) -> Void
    let buttonTimeout: Duration = .seconds(20)
    /// How long the LED blinks and the tone plays.
    var showFor: Duration = .seconds(2)

    func run() async -> [PartResult] {
        var results: [PartResult] = []
        for part in BoardPart.held where only.contains(part) {
            let result: PartResult
            switch part {
            case .led: result = await checkLED()
            case .display: result = await checkDisplay()
            case .light: result = await checkLight()
            case .sound: result = await checkSound()
            case .buttons: result = await checkButtons()
            case .rtc: continue
            }
            Self.sayVerdict(result, say: say)
            results.append(result)
        }
        return results
    }

    /// One part's verdict: `PASS  led: blinked`, then its hint on a line of its own.
    static func sayVerdict(_ result: PartResult, say: (String) -> Void) {
        say("\(result.passed ? "PASS" : "FAIL")  \(result.part.rawValue): \(result.detail)")
        if let hint = result.hint { say("      hint: \(hint)") }
    }

    private func checkLED() async -> PartResult {
        let indicator: any Indicator
        switch parts.indicator {
        case .failure(let error): return failure(.led, error)
        case .success(let opened): indicator = opened
        }
        say("LED: blinking for \(seconds(showFor)) s...")
        do {
            try await indicator.show(.blink(.white, on: .milliseconds(250), off: .milliseconds(250)))
            try? await Task.sleep(for: showFor)
            try await indicator.show(.off)
        } catch {
            return failure(.led, error)
        }
        return await ask(.led, "Did the LED blink?", seen: "blinked",
                         unseen: "the driver set the line but nobody saw the LED blink",
                         hint: SelfTestAdvice.ledNotSeenHint)
    }

    private func checkDisplay() async -> PartResult {
        let display: any CharacterDisplay
        switch parts.display {
        case .failure(let error): return failure(.display, error)
        case .success(let opened): display = opened
        }
        if let holder = parts.gpioHeldElsewhere {
            // Most likely alarmd.service on another socket: it draws on this display, and its
            // driver rewrites only the cells it believes changed, so a pattern drawn here would
            // leave its screen half stale.
            return PartResult(
                part: .display, passed: false,
                detail: "not drawn: another program holds the board's GPIO lines (\(holder.device)), most likely alarmd.service, which draws on this display",
                hint: "run the self-test as root (`sudo alarmd selftest ...`) so the running service checks its own parts, or `sudo systemctl stop alarmd` first")
        }
        do {
            for icon in DisplayIcon.allCases {
                try await display.define(icon.glyph, slot: Int(icon.code))
            }
            try await display.show(Appliance.selfTestPattern(size: display.size))
            try await display.setBacklight(true)
        } catch {
            return failure(.display, error)
        }
        say("Display: showing the test pattern (alarmd self-test, the four icons, digits).")
        let result = await ask(.display, "Does the display show \"alarmd self-test\" and four icons (bell, Zz, pause, play)?",
                               seen: "test pattern and glyphs shown",
                               unseen: "the bytes were accepted but the pattern is not readable",
                               hint: SelfTestAdvice.displayNotReadableHint)
        try? await display.show(DisplayFrame(size: display.size))
        try? await display.setBacklight(false)
        return result
    }

    private func checkLight() async -> PartResult {
        let light: any DimmableLight
        switch parts.light {
        case nil: return PartResult(part: .light, passed: false, detail: Self.noLight, hint: Self.noLightHint)
        case .failure(let error)?: return failure(.light, error)
        case .success(let opened)?: light = opened
        }
        say("Light: rising to full in four steps over \(seconds(showFor)) s...")
        do {
            for lightness in [0.25, 0.5, 0.75, 1.0] {
                try await light.setOutput(PerceivedLightness.output(lightness: lightness))
                try? await Task.sleep(for: showFor / 4)
            }
            try await light.setOutput(0)
        } catch {
            return failure(.light, error)
        }
        return await ask(.light, "Did the light rise to full in four steps, then go out?", seen: "rose to full in four steps",
                         unseen: "the PWM took the duty cycles but nobody saw the light change",
                         hint: SelfTestAdvice.lightNotSeenHint)
    }

    /// A board profile without `[light]`.
    static let noLight = "this board has no sunrise light: its profile has no [light] table"
    static let noLightHint = "wire one (board/README.md#sunrise-light) and add [light] to the profile"

    private func checkSound() async -> PartResult {
        let audio: any AudioOutput
        switch parts.audio {
        case .failure(let error): return failure(.sound, error)
        case .success(let opened): audio = opened
        }
        var mixerNote = ""
        switch parts.mixer {
        case .failure(let error)?:
            return PartResult(
                part: .sound, passed: false, detail: "volume control: \(error)",
                hint: SelfTestAdvice.volumeControlHint)
        case .success(let range)?:
            mixerNote = "; " + SelfTestAdvice.volumeControlNote(range)
        case nil:
            break
        }
        say("Sound: playing the alarm tone for \(seconds(showFor)) s...")
        do {
            try await audio.play(.builtInTone, gain: .constant(-12), looping: true)
            try? await Task.sleep(for: showFor)
            await audio.stop()
        } catch {
            return failure(.sound, error)
        }
        return await ask(.sound, "Did you hear the tone?", seen: "tone played" + mixerNote,
                         unseen: "the device took the sound but nobody heard it",
                         hint: SelfTestAdvice.toneNotHeardHint)
    }

    private func checkButtons() async -> PartResult {
        let buttons: any ButtonInput
        switch parts.buttons {
        case .failure(let error): return failure(.buttons, error)
        case .success(let opened): buttons = opened
        }
        guard person != nil else {
            return PartResult(part: .buttons, passed: true, detail: "lines opened; presses not checked (nobody to press them: --non-interactive)")
        }
        guard !parts.simulated else {
            return PartResult(part: .buttons, passed: true, detail: "simulated: the simulator's keys press them; nothing to check")
        }
        var events = buttons.events().makeAsyncIterator()
        var missing: [Button] = []
        for button in Button.allCases {
            say("Press and release \(button.rawValue.uppercased()) (within \(seconds(buttonTimeout)) s)...")
            if await waitForPress(of: button, in: &events) {
                say("      \(button.rawValue.uppercased()) seen")
            } else {
                missing.append(button)
            }
        }
        guard missing.isEmpty else {
            return PartResult(
                part: .buttons, passed: false,
                detail: "no press seen on \(missing.map { $0.rawValue.uppercased() }.joined(separator: " and "))",
                hint: "a button goes between its GPIO and GND (active-low, internal pull-up): check the wiring and `stop`/`snooze` in the profile (`gpioinfo` shows the lines)")
        }
        return PartResult(part: .buttons, passed: true, detail: "STOP and SNOOZE pressed and released")
    }

    /// Waits for a press and release of `button`; presses of the other button are named and
    /// ignored.
    private func waitForPress(of button: Button, in events: inout AsyncStream<ButtonEvent>.Iterator) async -> Bool {
        let deadline = ContinuousClock.now + buttonTimeout
        var pressed = false
        while ContinuousClock.now < deadline {
            let remaining = deadline - ContinuousClock.now
            guard let event = await Self.next(&events, within: remaining) else { return false }
            if event.button != button {
                if event.edge == .pressed { say("      that was \(event.button.rawValue.uppercased())") }
                continue
            }
            if event.edge == .pressed { pressed = true } else if pressed { return true }
        }
        return false
    }

    /// The next event, or `nil` when `timeout` passes first.
    private static func next(
        _ events: inout AsyncStream<ButtonEvent>.Iterator, within timeout: Duration
    ) async -> ButtonEvent? {
        let box = IteratorBox(events)
        defer { events = box.iterator }
        return await firstResult(within: timeout) { await box.next() } ?? nil
    }

    private func ask(_ part: BoardPart, _ question: String, seen: String, unseen: String, hint: String) async -> PartResult {
        await Self.ask(part, question, seen: seen, unseen: unseen, hint: hint, person: person)
    }

    /// The part passed if `person` saw it (`seen`); without a person, it passed on the driver's
    /// word, and the detail says so.
    static func ask(
        _ part: BoardPart, _ question: String, seen: String, unseen: String, hint: String, person: TerminalPerson?
    ) async -> PartResult {
        guard let person else {
            return PartResult(part: part, passed: true, detail: "\(seen) (driver accepted it; not confirmed by a person)")
        }
        switch await person.confirm(question) {
        case true?: return PartResult(part: part, passed: true, detail: seen)
        case false?: return PartResult(part: part, passed: false, detail: unseen, hint: hint)
        case nil: return PartResult(part: part, passed: false, detail: "no answer", hint: "answer y or n")
        }
    }

    private func failure(_ part: BoardPart, _ error: any Error) -> PartResult {
        guard let error = error as? HardwareError else {
            return PartResult(part: part, passed: false, detail: "\(error)", hint: nil)
        }
        return PartResult(part: part, passed: false, detail: "\(error)", hint: Self.hint(for: error, part: part))
    }

    /// What to try for a hardware error, by part and kind.
    static func hint(for error: HardwareError, part: BoardPart) -> String {
        switch (part, error.kind) {
        case (.led, .deviceUnavailable), (.buttons, .deviceUnavailable):
            return "no such GPIO chip or line: check `gpio.chip` and the line names in the profile against `gpiodetect` and `gpioinfo`"
        case (.led, .busy), (.buttons, .busy):
            return "another program holds the line (`gpioinfo` shows its consumer); stop it, or stop alarmd.service while testing"
        case (.display, .deviceUnavailable):
            return "no I2C bus or nothing at the address: enable I2C (`sudo raspi-config nonint do_i2c 0`), then `i2cdetect -y BUS` shows 27 or 3f"
        case (.display, .busy):
            return "another driver owns the address (`i2cdetect` shows UU): unbind it or choose another address"
        case (.display, .noAcknowledge):
            return "the backpack does not acknowledge: check SDA/SCL, power (5 V) and `display.address` (`i2cdetect -y BUS`)"
        case (.display, .io):
            return "the bus reported an I/O error: check SDA/SCL and the power, and the kernel log (`dmesg`)"
        case (_, .noAcknowledge):
            return "the device does not answer: check its wiring and power"
        case (.sound, .deviceUnavailable):
            return "no such sound device: `aplay -l` lists the cards; set `sound.device` in the profile (e.g. plughw:CARD=Headphones,DEV=0), and a mixer's `sound.card` as hw:CARD=Headphones"
        case (.sound, .busy):
            return "another program is playing on the device (PipeWire or PulseAudio?): use `default` or stop it"
        case (.light, .io) where error.errno == EACCES:
            return SelfTestAdvice.lightAccessHint
        case (.light, .deviceUnavailable):
            return SelfTestAdvice.lightMissingHint
        case (.light, .busy), (.light, .io):
            return "the PWM channel refused the setting: check the kernel log (`dmesg`) and `light.frequency` in the profile"
        case (.sound, .io), (.led, .io), (.buttons, .io), (.rtc, _):
            return "the device reported an I/O error: check the wiring and the kernel log (`dmesg`)"
        }
    }

    private func seconds(_ duration: Duration) -> String {
        let value = duration / .seconds(1)
        return value == value.rounded() ? "\(Int(value))" : "\(value)"
    }
}

/// What `body` returns, or `nil` if `timeout` passes first (`body` is then cancelled).
func firstResult<Value: Sendable>(
    within timeout: Duration, _ body: @escaping @Sendable () async -> Value
) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Holds an iterator across a task boundary for one `next()`.
private final class IteratorBox: @unchecked Sendable {
    // Only one task touches the iterator at a time: the reader inside `next(_:within:)`, then the
    // caller after the task group has finished.
    var iterator: AsyncStream<ButtonEvent>.Iterator

    init(_ iterator: AsyncStream<ButtonEvent>.Iterator) {
        self.iterator = iterator
    }

    func next() async -> ButtonEvent? {
        await iterator.next()
    }
}

/// A person at the terminal: questions on stdout, one line of answer on stdin.
struct TerminalPerson: Sendable {
    /// Asks a yes/no question; `nil` if there is no answer (end of input).
    func confirm(_ question: String) async -> Bool? {
        while true {
            writeAll("\(question) [y/n] ", to: 1)
            guard let line = await Self.readLine() else { return nil }
            switch line.lowercased() {
            case "y", "yes": return true
            case "n", "no": return false
            default: writeAll("Please answer y or n.\n", to: 1)
            }
        }
    }

    /// One line from stdin, read on a thread of its own so the cooperative pool never blocks.
    private static func readLine() async -> String? {
        await DetachedThread.run { Swift.readLine() }
    }
}
