import AlarmALSA
import AlarmBoard
import AlarmGPIO
import AlarmHardware
import AlarmLCD
import AlarmSimulator
import AlarmTime
import Glibc
import Logging

/// Opens a board's parts from its profile: libgpiod buttons and LED, the HD44780 over I2C, ALSA;
/// fakes for the simulated board. A part that cannot be opened carries its error.
enum BoardParts {
    /// How long to wait for the GPIO threads to say whether their chip and lines opened (they
    /// answer in milliseconds; a loaded machine may take seconds to schedule them).
    static let gpioStartTimeout: Duration = .seconds(15)

    static func open(_ profile: BoardProfile, clock: any WallClock, logger: Logger) async -> SelfTestParts {
        guard !profile.simulated, let gpio = profile.gpio, let display = profile.display else {
            return SelfTestParts(
                indicator: .success(FakeIndicator()),
                display: .success(FakeCharacterDisplay(size: profile.display?.size ?? .sixteenByTwo)),
                audio: .success(FakeAudioOutput()),
                buttons: .success(FakeButtonInput(clock: clock)), simulated: true)
        }
        var mixer: Result<ClosedRange<Double>, HardwareError>?
        if let control = profile.sound.mixer {
            do {
                mixer = .success(try ALSAMixerVolume(card: profile.sound.card, control: control).range())
            } catch {
                mixer = .failure(error)
            }
        }
        return SelfTestParts(
            indicator: await openIndicator(gpio),
            display: .success(openDisplay(display)),
            audio: openSound(profile.sound, logger: logger),
            buttons: await openButtons(gpio),
            mixer: mixer)
    }

    static func buttonConfiguration(_ gpio: BoardProfile.GPIO) -> GPIODButtonInput.Configuration {
        GPIODButtonInput.Configuration(
            chip: chipArgument(gpio.chip), stop: selector(gpio.stop), snooze: selector(gpio.snooze),
            bias: bias(gpio.buttonBias), activeLow: gpio.buttonsActiveLow,
            debounce: .milliseconds(gpio.debounceMilliseconds))
    }

    static func indicatorConfiguration(_ gpio: BoardProfile.GPIO) -> GPIODIndicator.Configuration {
        GPIODIndicator.Configuration(chip: chipArgument(gpio.chip), line: selector(gpio.led), activeLow: gpio.ledActiveLow)
    }

    static func openButtons(_ gpio: BoardProfile.GPIO) async -> Result<any ButtonInput, HardwareError> {
        do {
            let buttons = try GPIODButtonInput(configuration: buttonConfiguration(gpio))
            if let problem = await firstProblem(buttons.statusUpdates(), current: { buttons.status }) { return .failure(problem) }
            return .success(buttons)
        } catch {
            return .failure(error)
        }
    }

    static func openIndicator(_ gpio: BoardProfile.GPIO) async -> Result<any Indicator, HardwareError> {
        do {
            let indicator = try GPIODIndicator(configuration: indicatorConfiguration(gpio))
            if let problem = await firstProblem(indicator.statusUpdates(), current: { indicator.status }) { return .failure(problem) }
            return .success(indicator)
        } catch {
            return .failure(error)
        }
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

    static func openSound(_ sound: BoardProfile.Sound, logger: Logger) -> Result<any AudioOutput, HardwareError> {
        let output = alsaOutput(device: sound.device, logger: logger)
        if let problem = output.probe() { return .failure(problem) }
        return .success(output)
    }

    /// An ALSA output whose diagnostics go to the log at debug level.
    static func alsaOutput(device: String, logger: Logger) -> ALSAAudioOutput {
        ALSAAudioOutput(device: device, diagnostics: { message in
            logger.debug("ALSA: \(message)")
        })
    }

    /// Waits for the first status that is not `.starting`: `nil` for ready, else the failure.
    /// `updates` only carries changes from its subscription on, so the status at that moment
    /// (`current`, read after subscribing) may already be the answer.
    private static func firstProblem(
        _ updates: AsyncStream<GPIOStatus>, current: () -> GPIOStatus
    ) async -> HardwareError? {
        switch current() {
        case .ready: return nil
        case .failed(let error): return error
        case .starting, .closed: break
        }
        let settled = await firstResult(within: gpioStartTimeout) { () -> HardwareError? in
            for await status in updates {
                switch status {
                case .ready: return nil
                case .failed(let error): return error
                case .starting, .closed: continue
                }
            }
            return nil
        }
        return settled ?? HardwareError(.io, device: "gpio", errno: ETIMEDOUT)
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
