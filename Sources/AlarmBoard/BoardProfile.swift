import AlarmHardware

/// Where a board's buttons, LED, LCD and sound are: the data of one `board/*.toml` file, so that
/// no Swift file knows a pin number or an I2C address.
///
/// A profile describes wiring, not health: loading never touches hardware, so a profile that
/// loads can still name a chip that is absent or a line that is taken. The backends report those
/// as ``HardwareError``s when they open the devices.
public struct BoardProfile: Hashable, Sendable {
    /// A short identifier (`rpi4b`); defaults to the file's name without `.toml`.
    public var name: String
    /// One line for people (`Raspberry Pi 4 Model B`); may be empty.
    public var description: String
    /// A board made of fakes (the simulator and tests): no GPIO, LCD or sound hardware is opened.
    public var simulated: Bool
    /// The buttons and the LED; `nil` only when ``simulated`` and the file has no `[gpio]`.
    public var gpio: GPIO?
    /// The character LCD; `nil` only when ``simulated`` and the file has no `[display]`.
    public var display: Display?
    /// The sound output; defaults when the file has no `[sound]`.
    public var sound: Sound
    /// The real-time clock it has or can take; none built in when the file has no `[rtc]`.
    public var rtc: RTC
    /// The sunrise light; `nil` when the file has no `[light]`.
    public var light: Light?

    public init(
        name: String, description: String = "", simulated: Bool = false, gpio: GPIO?, display: Display?, sound: Sound = Sound(),
        rtc: RTC = RTC(), light: Light? = nil
    ) {
        self.name = name
        self.description = description
        self.simulated = simulated
        self.gpio = gpio
        self.display = display
        self.sound = sound
        self.rtc = rtc
        self.light = light
    }
}

extension BoardProfile {
    /// The two buttons and the LED, on one GPIO chip.
    public struct GPIO: Hashable, Sendable {
        public var chip: GPIOChip
        public var stop: GPIOLine
        public var snooze: GPIOLine
        public var led: GPIOLine
        public var buttonBias: ButtonBias
        /// A pressed button reads low: wired to GND with a pull-up, the usual wiring.
        public var buttonsActiveLow: Bool
        /// The LED lights when its line is low (wired from 3.3 V to the GPIO).
        public var ledActiveLow: Bool
        /// Edges closer than this to the last accepted edge are contact bounce.
        public var debounceMilliseconds: Int

        public init(
            chip: GPIOChip, stop: GPIOLine, snooze: GPIOLine, led: GPIOLine, buttonBias: ButtonBias = .pullUp,
            buttonsActiveLow: Bool = true, ledActiveLow: Bool = false, debounceMilliseconds: Int = 30
        ) {
            self.chip = chip
            self.stop = stop
            self.snooze = snooze
            self.led = led
            self.buttonBias = buttonBias
            self.buttonsActiveLow = buttonsActiveLow
            self.ledActiveLow = ledActiveLow
            self.debounceMilliseconds = debounceMilliseconds
        }
    }

    /// - Important: prefer the label. Chip numbers move between kernels: on a Raspberry Pi 5 the
    ///   header's chip (`pinctrl-rp1`) was `gpiochip4` before Raspberry Pi's kernel 6.6.45 and
    ///   `gpiochip0` after.
    public enum GPIOChip: Hashable, Sendable, CustomStringConvertible {
        /// The chip's label, as `gpiodetect` prints it in brackets: `pinctrl-bcm2711`.
        case label(String)
        /// The device name: `gpiochip0`.
        case name(String)
        /// The device path: `/dev/gpiochip0`.
        case path(String)

        public var description: String {
            switch self {
            case .label(let label): "label \(label)"
            case .name(let name): name
            case .path(let path): path
            }
        }
    }

    public enum GPIOLine: Hashable, Sendable, CustomStringConvertible {
        /// The line's name, as `gpioinfo` prints it: `GPIO4` on Raspberry Pi OS.
        case name(String)
        /// The line's offset on its chip (on a Raspberry Pi's header chip, the BCM GPIO number).
        case offset(Int)

        public var description: String {
            switch self {
            case .name(let name): name
            case .offset(let offset): "line \(offset)"
            }
        }
    }

    public enum ButtonBias: String, Hashable, Sendable, CaseIterable {
        /// The SoC's internal pull-up (about 50 kΩ on a Raspberry Pi): buttons to GND.
        case pullUp = "pull-up"
        /// The internal pull-down: buttons to 3.3 V.
        case pullDown = "pull-down"
        /// No internal resistor: the board has its own.
        case disabled
        /// Leave the bias as the kernel or firmware set it.
        case asIs = "as-is"
    }

    public struct Sound: Hashable, Sendable {
        /// The ALSA PCM name: `default`, `plughw:CARD=Headphones,DEV=0`, `hw:Loopback,0,0`.
        public var device: String
        /// A simple mixer control to set to the alarm volume (`PCM`); `nil` leaves the hardware
        /// volume alone and only the software gain ramps.
        public var mixer: String?
        /// The ALSA card or control device the mixer is on (`default`, `Headphones`, `hw:1`).
        public var card: String

        public init(device: String = "default", mixer: String? = nil, card: String = "default") {
            self.device = device
            self.mixer = mixer
            self.card = card
        }
    }
}
