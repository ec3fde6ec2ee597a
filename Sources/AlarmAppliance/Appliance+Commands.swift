import AlarmEngine
import AlarmHardware
import AlarmModel
import Logging

extension Appliance {
    /// Carries out `commands` in order, each outcome reported to the core before the next
    /// command; what the core answers with (a fallback sound) runs next, ahead of the rest.
    func perform(_ commands: [PartCommand]) async {
        var pending = Array(commands.reversed())
        while let command = pending.popLast() {
            let outcome = await execute(command)
            pending += core.record(outcome, of: command, at: moment).reversed()
        }
    }

    private func execute(_ command: PartCommand) async -> PartOutcome {
        do {
            try await attempt(command)
            return .done
        } catch {
            return .failed(error)
        }
    }

    private func attempt(_ command: PartCommand) async throws(HardwareError) {
        switch command {
        case .playAlert(let play):
            try await drive("audio") { try await hardware.audio.play(play.source, gain: play.gain, looping: true) }
        case .stopSound:
            await hardware.audio.stop()
        case .prepareSound(let source, let duration):
            await hardware.audio.prepare(source, for: duration)
        case .showPattern(let pattern):
            try await drive("led") { try await hardware.indicator.show(pattern) }
        case .setLight(let output):
            guard let light = hardware.light else { return }
            let before = core.lightOutput
            try await drive("light") { try await light.setOutput(output) }
            // What the lamp shows is the device's state: its subscribers (the MQTT bridge, the
            // page) follow it on and off and in tenths, not every step of a sunrise.
            if Self.lightTenths(before) != Self.lightTenths(output) { await runtime.publishDeviceSnapshot() }
        case .drawDisplay(let update):
            try await drive("display") { try await draw(update) }
        case .forgetDisplayContents:
            await hardware.display.forgetContents()
        case .pressAlarm(let press, let alarm, let reason):
            await self.press(press, on: alarm, because: reason)
        case .acknowledgeMissedAlarms:
            await runtime.acknowledgeMissedAlarms()
        case .recordSoundFallback(let alarm, let sound):
            await runtime.recordSoundFallback(for: alarm, sound: sound)
        case .answerPrompt(let number, let answer):
            waitingAnswers.removeValue(forKey: number)?.resume(returning: answer)
        case .endSelfTestWait:
            selfTestWait?.cancel()
        case .log(let entry):
            logger.log(level: entry.level, "\(entry.message)", metadata: entry.metadata.mapValues { .string($0) })
        }
    }

    /// An output in tenths, rounded up (so any light at all is not off); `-1` for off or unknown.
    static func lightTenths(_ output: Double?) -> Int {
        guard let output, output > 0 else { return -1 }
        return Int((output * 10).rounded(.up))
    }

    /// Runs one call into a part's driver, its error as the HAL's.
    private func drive(_ device: String, _ call: () async throws -> Void) async throws(HardwareError) {
        do {
            try await call()
        } catch {
            throw Self.hardwareError(error, device: device)
        }
    }

    private func draw(_ update: PartCommand.DisplayUpdate) async throws {
        let display = hardware.display
        if update.defineGlyphs {
            for icon in DisplayIcon.allCases {
                try await display.define(icon.glyph, slot: Int(icon.code))
            }
        }
        if let frame = update.frame { try await display.show(frame) }
        if let backlight = update.backlight { try await display.setBacklight(backlight) }
    }

    /// Presses one of the alarm's buttons in the engine, which makes the change and delivers the
    /// button's intent; a refusal (the alarm moved on meanwhile) is logged, not fatal.
    private func press(_ press: AlarmPress, on alarm: AlarmRecord, because reason: String) async {
        do {
            let action = try await runtime.press(press, on: alarm.key)
            logger.info("Button acted on an alarm", metadata: [
                "alarm.id": "\(alarm.id)", "client": "\(alarm.owner)", "action": "\(action.rawValue)", "reason": "\(reason)",
            ])
        } catch {
            logger.warning("Device action refused", metadata: [
                "alarm.id": "\(alarm.id)", "client": "\(alarm.owner)", "press": "\(press.rawValue)", "error": "\(error)",
            ])
        }
    }
}
