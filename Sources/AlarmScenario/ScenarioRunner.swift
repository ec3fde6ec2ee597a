import AlarmAppliance
import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials
import Logging

public struct ScenarioReport: Hashable, Sendable {
    public var passed = 0
    public var failed = 0

    public var succeeded: Bool { failed == 0 }
    /// The closing line: `12 passed, 0 failed`.
    public var summary: String { "\(passed) passed, \(failed) failed" }
}

/// Runs a ``ScenarioScript`` on a ``SimulatedDevice`` in virtual time, one line of output per
/// step: the virtual local time, `ok` or `FAIL`, the step, and for a failure what was found.
public enum ScenarioRunner {
    public static func run(
        _ script: ScenarioScript,
        storeDirectory: String,
        settings: ApplianceSettings = ApplianceSettings(),
        zones database: TimeZoneDatabase = TimeZoneDatabase(),
        logger: Logger,
        // Escaping, so what it captures lives on the heap: Swift 6.3's debug build crashed
        // (a null context) calling a non-escaping one after the suspensions below.
        output: @escaping (String) -> Void
    ) async -> ScenarioReport {
        var report = ScenarioReport()
        let device: SimulatedDevice
        do {
            let zone = try database.rules(named: script.setup.zoneName)
            device = try await SimulatedDevice(
                start: zone.instant(for: script.setup.start), zone: zone, displaySize: script.setup.displaySize,
                ledHasColor: script.setup.ledHasColor, settings: settings, timeUnconfirmed: script.setup.timeUnconfirmed,
                storeDirectory: storeDirectory, logger: logger)
        } catch {
            output("FAIL  start: \(error)")
            report.failed += 1
            return report
        }
        var run = Run(device: device, database: database)
        for step in script.steps {
            let problem = await run.perform(step.action)
            let time = run.localTimeText()
            if let problem {
                report.failed += 1
                output("\(time)  FAIL  \(step.text)  (line \(step.line)): \(problem)")
            } else {
                report.passed += 1
                output("\(time)  ok    \(step.text)")
            }
            if step.action == .show {
                run.describeDevice().forEach(output)
            }
        }
        return report
    }
}

/// One scenario's state while it runs: the device and the alarms' names.
private struct Run {
    let device: SimulatedDevice
    let database: TimeZoneDatabase
    var ids: [String: Alarm.ID] = [:]

    func localTimeText() -> String {
        let zone = device.zones.currentZoneOrUTC
        let local = zone.localDateTime(at: device.clock.now)
        return "\(local.date) \(local.time)"
    }

    /// Performs a step; returns what went wrong, or `nil`.
    mutating func perform(_ action: ScenarioScript.Action) async -> String? {
        let zone = device.zones.currentZoneOrUTC
        switch action {
        case .scheduleAlarm(let name, let definition):
            do {
                let alarm = try await device.schedule(definition)
                ids[name] = alarm.id
            } catch {
                return "refused: \(error)"
            }
        case .perform(let action, let name, let refusalExpected):
            guard let id = ids[name] else { return "\"\(name)\" was never scheduled" }
            do {
                try await device.perform(action, id: id)
                if refusalExpected { return "accepted, but a refusal was expected" }
            } catch {
                if !refusalExpected { return "refused: \(error)" }
            }
        case .wait(let seconds):
            await device.advance(by: seconds)
        case .waitUntil(let time):
            await device.advance(to: nextInstant(at: time, in: zone))
        case .setClock(let local):
            await device.setWallClock(to: zone.instant(for: local))
        case .ntpSynchronised:
            guard let machine = device.machine else { return "`ntp synchronised` needs `time unconfirmed` after `start`" }
            machine.synchronize()
            await device.appliance.refresh()
        case .setZone(let name):
            do {
                await device.setTimeZone(try database.rules(named: name))
            } catch {
                return "\(error)"
            }
        case .press(let button):
            await device.tap(button)
        case .hold(let button, let seconds):
            await device.hold(button, for: seconds)
        case .restart:
            do {
                try await device.restart()
            } catch {
                return "restart failed: \(error)"
            }
        case .sound(let knob):
            await turn(knob)
        case .display(let available):
            await device.setDisplayUnavailable(available ? nil : HardwareError(.io, device: "simulated-lcd"))
        case .storage(let errno):
            await device.setStorageFailing(errno)
        case .expect(let expectation):
            return await check(expectation)
        case .show:
            break
        }
        return nil
    }

    /// The next time the clock reads `time`: today's, or tomorrow's once today's has passed.
    private func nextInstant(at time: CivilTime, in zone: TimeZoneRules) -> Date {
        let now = device.clock.now
        let today = zone.localDateTime(at: now).date
        let target = zone.instant(for: LocalDateTime(date: today, time: time))
        return target > now ? target : zone.instant(for: LocalDateTime(date: today.adding(days: 1), time: time))
    }

    private func turn(_ knob: ScenarioScript.SoundKnob) async {
        switch knob {
        case .failNext(let kind): device.audio.failNextPlay(with: HardwareError(kind, device: Self.speaker))
        case .failNow(let kind): await device.failSoundNow(HardwareError(kind, device: Self.speaker))
        case .unavailable(let kind): await device.setSoundUnavailable(HardwareError(kind, device: Self.speaker))
        case .available: await device.setSoundUnavailable(nil)
        }
    }

    static let speaker = "simulated-speaker"

    /// The LCD as drawn, the backlight, the LED and the sound, for `show`.
    func describeDevice() -> [String] {
        let lines = device.display.lines
        let border = String(repeating: "-", count: lines.first?.count ?? 0)
        var description = ["    +\(border)+  backlight \(device.display.isBacklightOn ? "on" : "off")"]
        description += lines.map { "    |\($0)|" }
        description.append("    +\(border)+")
        description.append("    LED: \(Self.shape(of: device.indicator.pattern).rawValue)")
        if let playing = device.audio.nowPlaying {
            let gain = (playing.decibels(at: device.clock.monotonicNow) * 10).rounded() / 10
            description.append("    sound: \(playing.source) at \(gain) dB")
        } else {
            description.append("    sound: silent")
        }
        return description
    }

    private func check(_ expectation: ScenarioScript.Expectation) async -> String? {
        let lines = device.display.lines
        let shownDisplay = lines.map { "[\($0)]" }.joined(separator: " ")
        switch expectation {
        case .displayContains(let text):
            return lines.contains { $0.contains(text) } ? nil : "the display shows \(shownDisplay)"
        case .displayRow(let row, let text):
            guard (1...lines.count).contains(row) else { return "the display has \(lines.count) rows" }
            return Self.trimmed(lines[row - 1]) == Self.trimmed(text) ? nil : "row \(row) is [\(lines[row - 1])]"
        case .backlight(let on):
            let actual = device.display.isBacklightOn
            return actual == on ? nil : "the backlight is \(actual ? "on" : "off")"
        case .led(let shape):
            let pattern = device.indicator.pattern
            return Self.shape(of: pattern) == shape ? nil : "the LED shows \(pattern)"
        case .soundSilent:
            return device.audio.nowPlaying.map { "playing \($0.source)" }
        case .soundTone:
            guard let playing = device.audio.nowPlaying else { return "silent" }
            return playing.source == .builtInTone ? nil : "playing \(playing.source)"
        case .soundFile(let name):
            guard let playing = device.audio.nowPlaying else { return "silent" }
            if case .file(let path) = playing.source, path.split(separator: "/").last.map(String.init) == name { return nil }
            return "playing \(playing.source)"
        case .soundGain(let decibels):
            guard let playing = device.audio.nowPlaying else { return "silent" }
            let actual = playing.decibels(at: device.clock.monotonicNow)
            let rounded = (actual * 10).rounded() / 10
            return abs(actual - decibels) <= 0.5 ? nil : "the gain is \(rounded) dB"
        case .alarm(let name, let state):
            guard let id = ids[name] else { return "\"\(name)\" was never scheduled" }
            let actual = await device.alarms().first { $0.id == id }?.state
            guard actual != state else { return nil }
            return actual.map { "\(name) is \($0.rawValue)" } ?? "\(name) is gone"
        }
    }

    private static func trimmed(_ text: String) -> Substring {
        var text = Substring(text)
        while text.last == " " { text.removeLast() }
        while text.first == " " { text.removeFirst() }
        return text
    }

    private static func shape(of pattern: IndicatorPattern) -> ScenarioScript.LEDShape {
        switch pattern {
        case .off: .off
        case .steady: .steady
        case .blink: .blink
        case .flashes: .flashes
        case .breathe: .breathe
        }
    }
}

extension TimeZoneProvider {
    /// The zone, or UTC if it cannot be read (only for showing times in the runner's output).
    var currentZoneOrUTC: TimeZoneRules { (try? currentZone()) ?? .utc }
}
