import AlarmAppliance
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials
import Glibc

/// A plain-text scenario: one step per line, `#` starts a comment. See docs/simulator.md, "Scenario
/// scripts", for the format; in short:
///
/// ```
/// start 2026-11-23 06:58 Europe/Berlin
/// alarm wake at 07:00 title "Wake up" snooze 9m
/// wait until 07:00
/// expect sound tone
/// press snooze
/// expect alarm wake countdown
/// wait 9m
/// expect display row 1 "①Wake up   07:00"
/// ```
public struct ScenarioScript: Hashable, Sendable {
    public var setup: Setup
    public var steps: [Step]

    /// How the device starts: the `start` line and the optional `board` line.
    public struct Setup: Hashable, Sendable {
        public var start: LocalDateTime
        public var zoneName: String
        public var displaySize: DisplaySize = .sixteenByTwo
        public var ledHasColor = false
        /// `time unconfirmed`: the machine's clock is only its best guess (no NTP, no RTC), so the
        /// engine holds what a forward jump passes over until `ntp synchronised`.
        public var timeUnconfirmed = false
    }

    public struct Step: Hashable, Sendable {
        public var line: Int
        /// The line as written, without its comment.
        public var text: String
        public var action: Action
    }

    public enum Action: Hashable, Sendable {
        case scheduleAlarm(name: String, AlarmDefinition)
        /// The API call as a client makes it; with `refused`, the call must be refused (and change nothing).
        case perform(AlarmAction, name: String, refused: Bool = false)
        case wait(TimeInterval)
        case waitUntil(CivilTime)
        case setClock(LocalDateTime)
        /// NTP synchronises the machine's clock (after `time unconfirmed`): the time is confirmed.
        case ntpSynchronised
        case setZone(String)
        case press(Button)
        case hold(Button, TimeInterval)
        case restart
        case sound(SoundKnob)
        case display(available: Bool)
        /// Every write of the store fails with this errno (`ENOSPC`, `EROFS`), or, for `nil`, works again.
        case storage(failing: Int32?)
        case expect(Expectation)
        /// Prints the display, LED and sound (always passes): for writing scenarios.
        case show
    }

    public enum SoundKnob: Hashable, Sendable {
        case failNext(HardwareError.Kind)
        case failNow(HardwareError.Kind)
        case unavailable(HardwareError.Kind)
        case available
    }

    public enum Expectation: Hashable, Sendable {
        /// Some row contains the text.
        case displayContains(String)
        /// Row `row` (from 1) reads exactly the text, spaces at either end ignored.
        case displayRow(Int, String)
        case backlight(Bool)
        case led(LEDShape)
        case soundSilent
        case soundTone
        case soundFile(String)
        case soundGain(Double)
        case alarm(name: String, state: Alarm.State?)
    }

    /// Whatever its colour and timing.
    public enum LEDShape: String, Hashable, Sendable, CaseIterable {
        case off, steady, blink, flashes, breathe
    }
}

public struct ScenarioSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String

    public var description: String { "\(file):\(line): \(message)" }
}

extension ScenarioScript {
    /// Parses a scenario; every problem names its line.
    public static func parse(_ text: String, file: String = "scenario") throws(ScenarioSyntaxError) -> ScenarioScript {
        var setup: Setup?
        var steps: [Step] = []
        var names: Set<String> = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            func fail(_ message: String) -> ScenarioSyntaxError {
                ScenarioSyntaxError(file: file, line: line, message: message)
            }
            let words: [String]
            do {
                words = try tokenize(String(rawLine))
            } catch {
                throw fail(error.message)
            }
            guard let command = words.first else { continue }
            let arguments = Array(words.dropFirst())
            var reader = ArgumentReader(arguments: arguments, fail: fail)
            if command == "start" {
                guard setup == nil, steps.isEmpty else { throw fail("`start` must come once, before every step") }
                setup = try parseStart(&reader)
                continue
            }
            guard setup != nil else { throw fail("the first step must be `start DATE TIME ZONE`") }
            if command == "board" {
                guard steps.isEmpty else { throw fail("`board` must come right after `start`") }
                try parseBoard(&reader, into: &setup!)
                continue
            }
            if command == "time" {
                guard steps.isEmpty else { throw fail("`time unconfirmed` must come right after `start`") }
                try reader.expect("unconfirmed")
                try reader.finish()
                setup!.timeUnconfirmed = true
                continue
            }
            let action = try parseAction(command, &reader, names: &names)
            try reader.finish()
            let shown = words.map { $0.contains(" ") || $0.isEmpty ? "\"\($0)\"" : $0 }.joined(separator: " ")
            steps.append(Step(line: line, text: shown, action: action))
        }
        guard let setup else {
            throw ScenarioSyntaxError(file: file, line: 1, message: "a scenario starts with `start DATE TIME ZONE`")
        }
        return ScenarioScript(setup: setup, steps: steps)
    }

    private static func parseStart(_ reader: inout ArgumentReader) throws(ScenarioSyntaxError) -> Setup {
        let date = try reader.date()
        let time = try reader.time()
        let zone = try reader.word("a time zone, like Europe/Berlin")
        try reader.finish()
        return Setup(start: LocalDateTime(date: date, time: time), zoneName: zone)
    }

    private static func parseBoard(_ reader: inout ArgumentReader, into setup: inout Setup) throws(ScenarioSyntaxError) {
        switch try reader.word("16x2 or 20x4") {
        case "16x2": setup.displaySize = .sixteenByTwo
        case "20x4": setup.displaySize = .twentyByFour
        case let other: throw reader.fail("display size \"\(other)\" is not 16x2 or 20x4")
        }
        if reader.accept("rgb") { setup.ledHasColor = true }
        try reader.finish()
    }

    private static func parseAction(
        _ command: String, _ reader: inout ArgumentReader, names: inout Set<String>
    ) throws(ScenarioSyntaxError) -> Action {
        switch command {
        case "alarm":
            let name = try reader.newName(&names)
            return .scheduleAlarm(name: name, try parseAlarm(&reader))
        case "timer":
            let name = try reader.newName(&names)
            let duration = try reader.duration()
            var title = "Timer"
            if reader.accept("title") { title = try reader.word("a title") }
            let presentation = AlarmPresentation(
                alert: .init(title: title, stopButton: .stop, secondaryButton: .repeat, secondaryButtonBehavior: .countdown),
                countdown: .init(title: title, pauseButton: .pause),
                paused: .init(title: title, resumeButton: .resume))
            return .scheduleAlarm(name: name, AlarmDefinition(
                schedule: nil, countdownDuration: .init(preAlert: duration, postAlert: duration), presentation: presentation))
        case "stop", "cancel", "snooze", "pause", "resume":
            let action: AlarmAction = command == "snooze" ? .countdown : AlarmAction(rawValue: command)!
            return .perform(action, name: try reader.knownName(names), refused: reader.accept("refused"))
        case "wait":
            if reader.accept("until") { return .waitUntil(try reader.time()) }
            return .wait(try reader.duration())
        case "set":
            if reader.accept("clock") { return .setClock(LocalDateTime(date: try reader.date(), time: try reader.time())) }
            if reader.accept("zone") { return .setZone(try reader.word("a time zone")) }
            throw reader.fail("`set` takes `clock DATE TIME` or `zone NAME`")
        case "ntp":
            try reader.expect("synchronised")
            return .ntpSynchronised
        case "press":
            return .press(try reader.button())
        case "hold":
            let button = try reader.button()
            return .hold(button, try reader.duration())
        case "restart":
            return .restart
        case "sound":
            return .sound(try parseSoundKnob(&reader))
        case "display":
            if reader.accept("fails") { return .display(available: false) }
            if reader.accept("works") { return .display(available: true) }
            throw reader.fail("`display` takes `fails` or `works`")
        case "storage":
            if reader.accept("full") { return .storage(failing: ENOSPC) }
            if reader.accept("readonly") { return .storage(failing: EROFS) }
            if reader.accept("works") { return .storage(failing: nil) }
            throw reader.fail("`storage` takes `full`, `readonly` or `works`")
        case "expect":
            return .expect(try parseExpectation(&reader, names: names))
        case "show":
            return .show
        default:
            throw reader.fail("unknown step \"\(command)\"")
        }
    }

    private static func parseAlarm(_ reader: inout ArgumentReader) throws(ScenarioSyntaxError) -> AlarmDefinition {
        try reader.expect("at")
        let time = try reader.time()
        var repeats = Alarm.Schedule.Relative.Recurrence.never
        var title = "Alarm"
        var snooze: TimeInterval = 9 * 60
        var sound = AlertSound.default
        var secondary = "snooze"
        var tint = Color.white
        while let option = reader.next() {
            switch option {
            case "on": repeats = .weekly(try reader.weekdays())
            case "title": title = try reader.word("a title")
            case "snooze": snooze = try reader.duration()
            case "sound": sound = .named(try reader.word("a sound file name"))
            case "secondary": secondary = try reader.word("snooze, custom or none")
            case "tint": tint = try reader.color()
            default: throw reader.fail("unknown alarm option \"\(option)\" (on, title, snooze, sound, secondary, tint)")
            }
        }
        let alert: AlarmPresentation.Alert
        var secondaryIntent: AlarmIntent?
        switch secondary {
        case "snooze":
            alert = .init(title: title, stopButton: .stop, secondaryButton: .snooze, secondaryButtonBehavior: .countdown)
        case "custom":
            alert = .init(title: title, stopButton: .stop,
                          secondaryButton: AlarmButton(text: "Open", textColor: .white, systemImageName: "arrow.up.right"),
                          secondaryButtonBehavior: .custom)
            secondaryIntent = AlarmIntent("open")
        case "none":
            alert = .init(title: title, stopButton: .stop)
        default:
            throw reader.fail("secondary \"\(secondary)\" is not snooze, custom or none")
        }
        return AlarmDefinition(
            schedule: .relative(.init(time: .init(hour: time.hour, minute: time.minute), repeats: repeats)),
            countdownDuration: .init(preAlert: nil, postAlert: snooze),
            presentation: AlarmPresentation(alert: alert, countdown: .init(title: title), paused: nil),
            tintColor: tint, secondaryIntent: secondaryIntent, sound: sound)
    }

    private static func parseSoundKnob(_ reader: inout ArgumentReader) throws(ScenarioSyntaxError) -> SoundKnob {
        if reader.accept("available") { return .available }
        if reader.accept("unavailable") { return .unavailable(reader.isAtEnd ? .deviceUnavailable : try reader.errorKind()) }
        try reader.expect("fails")
        if reader.accept("next") { return .failNext(try reader.errorKind()) }
        if reader.accept("now") { return .failNow(try reader.errorKind()) }
        throw reader.fail("`sound fails` takes `next KIND` or `now KIND`")
    }

    private static func parseExpectation(
        _ reader: inout ArgumentReader, names: Set<String>
    ) throws(ScenarioSyntaxError) -> Expectation {
        switch try reader.word("display, backlight, led, sound or alarm") {
        case "display":
            if reader.accept("row") {
                let row = try reader.integer("a row number")
                return .displayRow(row, try reader.word("the row's text, in quotes"))
            }
            return .displayContains(try reader.word("text to find, in quotes"))
        case "backlight":
            if reader.accept("on") { return .backlight(true) }
            if reader.accept("off") { return .backlight(false) }
            throw reader.fail("`expect backlight` takes on or off")
        case "led":
            let word = try reader.word("off, steady, blink, flashes or breathe")
            guard let shape = LEDShape(rawValue: word) else {
                throw reader.fail("LED pattern \"\(word)\" is not off, steady, blink, flashes or breathe")
            }
            return .led(shape)
        case "sound":
            switch try reader.word("silent, tone, file NAME or gain DB") {
            case "silent": return .soundSilent
            case "tone": return .soundTone
            case "file": return .soundFile(try reader.word("a sound file name"))
            case "gain": return .soundGain(try reader.number("a gain in dB"))
            case let other: throw reader.fail("`expect sound` takes silent, tone, file NAME or gain DB, not \"\(other)\"")
            }
        case "alarm":
            let name = try reader.knownName(names)
            let word = try reader.word("scheduled, countdown, paused, alerting or gone")
            if word == "gone" { return .alarm(name: name, state: nil) }
            guard let state = Alarm.State(rawValue: word) else {
                throw reader.fail("alarm state \"\(word)\" is not scheduled, countdown, paused, alerting or gone")
            }
            return .alarm(name: name, state: state)
        case let other:
            throw reader.fail("cannot expect \"\(other)\" (display, backlight, led, sound or alarm)")
        }
    }

    /// Words separated by spaces; double quotes keep spaces (`\"` for a quote); `#` outside
    /// quotes starts a comment.
    static func tokenize(_ line: String) throws(TokenizeError) -> [String] {
        var words: [String] = []
        var current = ""
        var inQuotes = false, quoted = false, escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if inQuotes {
                switch character {
                case "\\": escaped = true
                case "\"": inQuotes = false
                default: current.append(character)
                }
            } else if character == "#" {
                break
            } else if character == "\"" {
                inQuotes = true
                quoted = true
            } else if character == " " || character == "\t" || character == "\r" {
                if !current.isEmpty || quoted { words.append(current) }
                current = ""
                quoted = false
            } else {
                current.append(character)
            }
        }
        guard !inQuotes else { throw TokenizeError(message: "a quote is not closed") }
        if !current.isEmpty || quoted { words.append(current) }
        return words
    }

    struct TokenizeError: Error {
        var message: String
    }
}
