import AlarmALSA
import AlarmBoard
import AlarmGPIO
import AlarmHardware
import AlarmLCD
import AlarmPWM
import AlarmSimulator
import AlarmTime
import Glibc
import Logging

/// How a board profile's entries become the backends' configurations: libgpiod lines, the
/// HD44780 over I2C, ALSA. ``DaemonBoard`` opens the parts with them.
enum BoardParts {
    static func buttonConfiguration(_ gpio: BoardProfile.GPIO) -> GPIODButtonInput.Configuration {
        GPIODButtonInput.Configuration(
            chip: chipArgument(gpio.chip), stop: selector(gpio.stop), snooze: selector(gpio.snooze),
            bias: bias(gpio.buttonBias), activeLow: gpio.buttonsActiveLow,
            debounce: .milliseconds(gpio.debounceMilliseconds))
    }

    static func indicatorConfiguration(_ gpio: BoardProfile.GPIO) -> GPIODIndicator.Configuration {
        GPIODIndicator.Configuration(chip: chipArgument(gpio.chip), line: selector(gpio.led), activeLow: gpio.ledActiveLow)
    }

    /// The HD44780 driver opens its bus lazily, on the first frame: errors show there.
    static func openDisplay(_ display: BoardProfile.Display) -> any CharacterDisplay {
        let address: PCF8574Address = switch display.address {
        case .auto: .automatic
        case .fixed(let address): .fixed(address)
        }
        return HD44780Display(
            size: display.size, bus: LinuxI2CBus(number: display.bus), address: address,
            wiring: display.wiring, timing: display.compatibilityMode ? .compatibility : .datasheet)
    }

    /// The sunrise light on its PWM channel, opened now so a missing overlay or a file alarmd may
    /// not write shows at start; it is opened again at each use until it works.
    static func openLight(_ light: BoardProfile.Light, logger: Logger) async -> SysfsPWMLight {
        let pwm = SysfsPWMLight(configuration: .init(chip: light.chip, channel: light.channel, frequency: light.frequency))
        do {
            let path = try await pwm.open()
            logger.info("Sunrise light ready", metadata: ["pwm": "\(path)", "frequency.hz": "\(light.frequency)"])
        } catch {
            var metadata: Logger.Metadata = ["error": "\(error)"]
            if let enable = light.enable { metadata["hint"] = "add \(enable) to config.txt and reboot" }
            logger.error("Sunrise light not available at start; alarms ring without it until it is", metadata: metadata)
        }
        return pwm
    }

    /// An ALSA output whose diagnostics go to the log at debug level.
    static func alsaOutput(device: String, logger: Logger) -> ALSAAudioOutput {
        ALSAAudioOutput(device: device, diagnostics: { message in
            logger.debug("ALSA: \(message)")
        })
    }

    private static func chipArgument(_ chip: BoardProfile.GPIOChip) -> String {
        switch chip {
        case .label(let label): label
        case .name(let name): name
        case .path(let path): path
        }
    }

    private static func selector(_ line: BoardProfile.GPIOLine) -> GPIOLineSelector {
        switch line {
        case .name(let name): .name(name)
        case .offset(let offset): .offset(UInt32(clamping: offset))
        }
    }

    private static func bias(_ bias: BoardProfile.ButtonBias) -> GPIOBias {
        switch bias {
        case .pullUp: .pullUp
        case .pullDown: .pullDown
        case .disabled: .disabled
        case .asIs: .asIs
        }
    }
}
