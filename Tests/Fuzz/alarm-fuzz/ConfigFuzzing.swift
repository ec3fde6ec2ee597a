import AlarmBoard
import AlarmHardware
import TOMLConfig

@testable import AlarmDaemon

/// The `config` and `profile` targets: an input is a file's bytes, read as `alarmd` reads
/// `alarmd.toml` and `board/*.toml` (``ConfigFile/read(_:)`` refuses text that is not UTF-8, so
/// only UTF-8 reaches the parsers).
///
/// Invariants: a refusal is a ``ConfigError`` of one line, on a line of the file (or 0); ignored
/// keys are warnings of one line, on a line of the file; parsing is deterministic; what is
/// accepted meets the checks its documentation promises.
enum ConfigFuzzing {
    static let file = "fuzz.toml"

    static func runConfiguration(_ bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self) else { return }
        let lines = lineCount(bytes)
        let loaded: DaemonConfiguration.Loaded
        do {
            loaded = try DaemonConfiguration.parse(text, file: file)
        } catch {
            return checkRefusal(error, lines: lines)
        }
        fuzzCheck((try? DaemonConfiguration.parse(text, file: file)) == loaded, "parsing the same text twice differs")
        loaded.warnings.forEach { checkWarning($0, lines: lines) }
        let configuration = loaded.configuration
        // What the file set passes the checks the command line's values get.
        let overrides = DaemonConfiguration.Overrides(
            stateDirectory: configuration.stateDirectory, socketPath: configuration.socketPath, logLevel: configuration.logLevel)
        do {
            var merged = configuration
            try merged.apply(overrides)
            fuzzCheck(merged == configuration, "applying the file's own values changed them")
        } catch {
            fuzzCheck(false, "the file's accepted values fail the command line's checks: \(error)")
        }
        for group in [configuration.socketGroup, configuration.adminGroup] {
            fuzzCheck(DaemonConfiguration.checkGroupName(group) == nil, "accepted the group name \(group.debugDescription)")
        }
        fuzzCheck(configuration.control.maximumClients >= 1, "max_clients \(configuration.control.maximumClients)")
        fuzzCheck(configuration.engine.maximumAlarms >= 1, "max_alarms \(configuration.engine.maximumAlarms)")
    }

    static func runProfile(_ bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self) else { return }
        let lines = lineCount(bytes)
        let loaded: BoardProfile.Loaded
        do {
            loaded = try BoardProfile.parse(text, file: file, defaultName: "fuzz")
        } catch {
            return checkRefusal(error, lines: lines)
        }
        fuzzCheck((try? BoardProfile.parse(text, file: file, defaultName: "fuzz")) == loaded, "parsing the same text twice differs")
        loaded.warnings.forEach { checkWarning($0, lines: lines) }
        let profile = loaded.profile
        fuzzCheck(!profile.name.isEmpty, "an empty profile name")
        fuzzCheck(profile.simulated || (profile.gpio != nil && profile.display != nil), "a real board without [gpio] or [display]")
        let sound = profile.sound
        fuzzCheck(!sound.device.isEmpty && !sound.card.isEmpty && sound.mixer?.isEmpty != true, "an empty ALSA name: \(sound)")
        if let gpio = profile.gpio {
            fuzzCheck(Set([gpio.stop, gpio.snooze, gpio.led]).count == 3, "two GPIO roles share a line: \(gpio)")
            fuzzCheck((0...500).contains(gpio.debounceMilliseconds), "debounce_ms \(gpio.debounceMilliseconds)")
            switch gpio.chip {
            case .path(let path): fuzzCheck(path.hasPrefix("/"), "a relative chip path \(path.debugDescription)")
            case .name(let name), .label(let name): fuzzCheck(!name.isEmpty && name.utf8.count <= 31, "chip \(name.debugDescription)")
            }
            for line in [gpio.stop, gpio.snooze, gpio.led] {
                switch line {
                case .offset(let offset): fuzzCheck((0...1023).contains(offset), "line offset \(offset)")
                case .name(let name): fuzzCheck(!name.isEmpty && name.utf8.count <= 31, "line name \(name.debugDescription)")
                }
            }
        }
        if let display = profile.display {
            let wiring = display.wiring
            let bits = [wiring.registerSelect, wiring.readWrite, wiring.enable, wiring.backlight].compactMap { $0 } + wiring.data
            fuzzCheck(Set(bits).count == 8 && bits.allSatisfy { (0...7).contains($0) }, "backpack pins \(bits)")
            fuzzCheck((0...255).contains(display.bus), "i2c bus \(display.bus)")
            if case .fixed(let address) = display.address {
                fuzzCheck((0x03...0x77).contains(address), "i2c address \(address)")
            }
            fuzzCheck(display.size == .sixteenByTwo || display.size == .twentyByFour, "display size \(display.size)")
        }
    }

    /// Lines of the file as the parser numbers them (split at `\n`).
    private static func lineCount(_ bytes: [UInt8]) -> Int {
        bytes.count(where: { $0 == 0x0A }) + 1
    }

    private static func checkRefusal(_ error: ConfigError, lines: Int) {
        fuzzCheck(error.file == file, "the error names \(error.file), not the file")
        fuzzCheck((0...lines).contains(error.line), "the error is on line \(error.line) of \(lines)")
        fuzzCheck(!error.message.isEmpty, "an empty error message")
        fuzzCheck(!error.description.contains(where: \.isNewline), "the error is not one line: \(error.description.debugDescription)")
    }

    private static func checkWarning(_ warning: ConfigWarning, lines: Int) {
        fuzzCheck((1...lines).contains(warning.line), "the warning is on line \(warning.line) of \(lines)")
        fuzzCheck(!warning.description.contains(where: \.isNewline), "a warning is not one line: \(warning.description.debugDescription)")
    }
}
