import AlarmHardware
import TOMLConfig

extension BoardProfile {
    /// A profile with the file it came from and the keys in it that were ignored.
    public struct Loaded: Hashable, Sendable {
        public var profile: BoardProfile
        public var file: String
        /// Unknown keys and tables (typos, most likely); log them, they never stop the daemon.
        public var warnings: [ConfigWarning]
    }

    /// Reads a profile from the text of a board file (the format is in `board/README.md`);
    /// `defaultName` names it when the file has no `name` key. Throws the first problem.
    public static func parse(_ text: String, file: String, defaultName: String) throws(ConfigError) -> Loaded {
        var reader = ConfigReader(try TOMLDocument.parse(text, file: file))
        let profile = try BoardProfile(reading: &reader, defaultName: defaultName)
        var warnings = reader.unknownKeys
        if let mixer = profile.sound.mixer, let spelling = Sound.controlDeviceSpelling(ofCard: profile.sound.card) {
            // Not an error: the daemon still opens the card (AlarmALSA's ALSAMixerVolume takes a bare
            // id alsa-lib has no control for as that card), and a clock that refused to start
            // over its volume control would ring nothing.
            warnings.append(ConfigWarning(
                file: file, line: reader.line(of: "sound.card"), key: "sound.card",
                message: "\"\(profile.sound.card)\" is a card id, and alsa-lib opens the \(mixer.debugDescription) control by control device "
                    + "name (\"Invalid CTL \(profile.sound.card)\"): write card = \"\(spelling)\" (used meanwhile)"))
        }
        return Loaded(profile: profile, file: file, warnings: warnings)
    }

    /// Reads every key of the format from `reader`, so that its ``ConfigReader/unknownKeys`` are
    /// what the format does not know.
    public init(reading reader: inout ConfigReader, defaultName: String) throws(ConfigError) {
        let simulated = try reader.value("simulated", as: .boolean, default: false)
        self.init(
            name: try reader.value("name", as: .nonEmptyString, default: defaultName),
            description: try reader.value("description", as: .string, default: ""),
            simulated: simulated,
            gpio: try Self.table("gpio", in: &reader, requiredUnless: simulated) { reader throws(ConfigError) in try GPIO(reading: &reader) },
            display: try Self.table("display", in: &reader, requiredUnless: simulated) { reader throws(ConfigError) in try Display(reading: &reader) },
            sound: try Sound(reading: &reader),
            rtc: try RTC(reading: &reader),
            light: reader.hasTable("light") ? try Light(reading: &reader) : nil
        )
    }

    private static func table<T>(
        _ name: String, in reader: inout ConfigReader, requiredUnless simulated: Bool,
        read: (inout ConfigReader) throws(ConfigError) -> T
    ) throws(ConfigError) -> T? {
        if reader.contains(name) {
            throw reader.error(name, "expected a [\(name)] table, found \(ConfigType<Int>.shown(reader.document[name]!.value))")
        }
        if reader.hasTable(name) { return try read(&reader) }
        if simulated { return nil }
        throw ConfigError(file: reader.file, line: 0, key: name, message: "missing [\(name)] table (required unless simulated = true)")
    }
}

extension BoardProfile.GPIO {
    init(reading reader: inout ConfigReader) throws(ConfigError) {
        let chip = try reader.require("gpio.chip", as: .gpioChip)
        var lines: [(key: String, line: BoardProfile.GPIOLine)] = []
        for key in ["gpio.stop", "gpio.snooze", "gpio.led"] {
            let line = try reader.require(key, as: .gpioLine)
            if let earlier = lines.first(where: { $0.line == line }) {
                throw reader.error(key, "\(line) is already used by \(earlier.key) (line \(reader.line(of: earlier.key)))")
            }
            lines.append((key, line))
        }
        let bias = try reader.value("gpio.button_bias", as: .word(BoardProfile.ButtonBias.self), default: .pullUp)
        let activeLow = try reader.value("gpio.buttons_active_low", as: .boolean, default: true)
        // A button that connects the line to the level its bias already holds never changes it.
        if (bias == .pullUp && !activeLow) || (bias == .pullDown && activeLow) {
            let key = reader.contains("gpio.button_bias") ? "gpio.button_bias" : "gpio.buttons_active_low"
            throw reader.error(
                key,
                "button_bias = \"\(bias.rawValue)\" with buttons_active_low = \(activeLow) never sees a press: "
                    + "buttons to GND need pull-up and active-low, buttons to 3.3 V need pull-down and active-high")
        }
        self.init(
            chip: chip, stop: lines[0].line, snooze: lines[1].line, led: lines[2].line, buttonBias: bias, buttonsActiveLow: activeLow,
            ledActiveLow: try reader.value("gpio.led_active_low", as: .boolean, default: false),
            debounceMilliseconds: try reader.value("gpio.debounce_ms", as: .integer(in: 0...500), default: 30)
        )
    }
}

extension BoardProfile.Display {
    init(reading reader: inout ConfigReader) throws(ConfigError) {
        let bus = try reader.require("display.bus", as: .integer(in: 0...255))
        let address = try reader.value("display.address", as: .displayAddress, default: .auto)
        let size = try reader.value("display.size", as: .displaySize, default: .sixteenByTwo)
        let wiring: PCF8574Wiring
        if reader.contains("display.pins") {
            throw reader.error("display.pins", "expected a [display.pins] table, found \(ConfigType<Int>.shown(reader.document["display.pins"]!.value))")
        }
        if reader.hasTable("display.pins") {
            if reader.contains("display.wiring") {
                _ = try reader.optional("display.wiring", as: .string)
                throw reader.error("display.wiring", "give either wiring or a [display.pins] table, not both")
            }
            wiring = try PCF8574Wiring(reading: &reader)
        } else {
            let names = PCF8574Wiring.presets.map(\.name)
            let name = try reader.value("display.wiring", as: .word(names), default: names[0])
            wiring = PCF8574Wiring.presets.first { $0.name == name }!.wiring
        }
        self.init(
            bus: bus, address: address, size: size, wiring: wiring,
            compatibilityMode: try reader.value("display.compatibility_mode", as: .boolean, default: false)
        )
    }
}

extension PCF8574Wiring {
    /// The wirings `display.wiring` names, the default first.
    static let presets: [(name: String, wiring: PCF8574Wiring)] = [("common", .common), ("alternate", .alternate)]

    init(reading reader: inout ConfigReader) throws(ConfigError) {
        var bits: [Int] = []
        var owner: [Int: String] = [:]
        for name in ["rs", "rw", "e", "backlight", "d4", "d5", "d6", "d7"] {
            let key = "display.pins." + name
            let bit = try reader.require(key, as: .integer(in: 0...7))
            if let earlier = owner[bit] {
                throw reader.error(key, "bit \(bit) is already used by \(earlier) (line \(reader.line(of: earlier)))")
            }
            owner[bit] = key
            bits.append(bit)
        }
        // Every bit is in 0...7 and none is used twice, as the initialiser requires.
        self.init(
            registerSelect: bits[0], readWrite: bits[1], enable: bits[2], data: (bits[4], bits[5], bits[6], bits[7]),
            backlight: bits[3], backlightActiveLow: try reader.value("display.pins.backlight_active_low", as: .boolean, default: false)
        )!
    }
}

extension BoardProfile.Sound {
    /// Control device names alsa-lib defines itself, or its common plugins do, that need no `:`.
    static let plainControlDevices: Set<String> = ["default", "sysdefault", "hw", "pulse", "pipewire"]

    /// `hw:CARD=ID` when `card` is a bare card id (`Headphones`, as `aplay -l` shows it), which
    /// `snd_mixer_attach` refuses; `nil` when `card` is written as a control device already.
    public static func controlDeviceSpelling(ofCard card: String) -> String? {
        let bare = card.unicodeScalars.allSatisfy { ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
        guard bare, !plainControlDevices.contains(card) else { return nil }
        return "hw:CARD=" + card
    }

    init(reading reader: inout ConfigReader) throws(ConfigError) {
        _ = reader.hasTable("sound")
        self.init(
            device: try reader.value("sound.device", as: .nonEmptyString, default: "default"),
            mixer: try reader.optional("sound.mixer", as: .nonEmptyString),
            card: try reader.value("sound.card", as: .nonEmptyString, default: "default")
        )
    }
}

// MARK: - Value types of the format

/// The kernel keeps chip labels and line names in 32-byte fields with a terminating NUL.
private let kernelNameLimit = 31

extension ConfigType where Value == BoardProfile.GPIOChip {
    /// A path (contains `/`), a device name (`gpiochip` and digits) or else a label.
    static var gpioChip: ConfigType<BoardProfile.GPIOChip> {
        let expected = "a chip label, name or path (\"pinctrl-bcm2711\", \"gpiochip0\", \"/dev/gpiochip0\")"
        return ConfigType(expected: expected) { value in
            guard case .string(let text) = value else { return .failure(ConfigRefusal("expected \(expected), found \(shown(value))")) }
            if text.isEmpty { return .failure(ConfigRefusal("must not be empty; expected \(expected)")) }
            if text.contains("/") {
                return text.hasPrefix("/") ? .success(.path(text)) : .failure(ConfigRefusal("a chip path must be absolute, like \"/dev/gpiochip0\""))
            }
            if text.utf8.count > kernelNameLimit {
                return .failure(ConfigRefusal("\(value) is longer than a chip label can be (\(kernelNameLimit) bytes)"))
            }
            let digits = text.dropFirst("gpiochip".count)
            if text.hasPrefix("gpiochip"), !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) {
                return .success(.name(text))
            }
            return .success(.label(text))
        }
    }
}

extension ConfigType where Value == BoardProfile.GPIOLine {
    /// A line name (a string) or an offset (an integer).
    static var gpioLine: ConfigType<BoardProfile.GPIOLine> {
        let expected = "a line name (\"GPIO4\") or offset (4)"
        return ConfigType(expected: expected) { value in
            switch value {
            case .integer(let offset):
                guard (0...1023).contains(offset) else { return .failure(ConfigRefusal("line offset must be from 0 to 1023, found \(offset)")) }
                return .success(.offset(offset))
            case .string(let name):
                if name.isEmpty { return .failure(ConfigRefusal("must not be empty; expected \(expected)")) }
                if name.allSatisfy({ $0.isASCII && $0.isNumber }) {
                    return .failure(ConfigRefusal("\(value) is a string; write \(name) without quotes for a line offset"))
                }
                if name.utf8.count > kernelNameLimit {
                    return .failure(ConfigRefusal("\(value) is longer than a line name can be (\(kernelNameLimit) bytes)"))
                }
                return .success(.name(name))
            default:
                return .failure(ConfigRefusal("expected \(expected), found \(shown(value))"))
            }
        }
    }
}

extension ConfigType where Value == BoardProfile.DisplayAddress {
    /// `"auto"` or a 7-bit address outside the reserved ranges.
    static var displayAddress: ConfigType<BoardProfile.DisplayAddress> {
        let valid = 0x03...0x77
        let expected = "\"auto\" or an I2C address from \(hexAddress(valid.lowerBound)) to \(hexAddress(valid.upperBound))"
        return ConfigType(expected: expected) { value in
            switch value {
            case .string("auto"):
                return .success(.auto)
            case .integer(let address) where valid.contains(address):
                return .success(.fixed(UInt8(address)))
            case .integer(let address):
                let shownAddress = address >= 0 ? " (\(hexAddress(address)))" : ""
                return .failure(ConfigRefusal("expected \(expected), found \(address)\(shownAddress)"))
            case .string(let text) where Int(text.replacingHexPrefix, radix: text.hasHexPrefix ? 16 : 10) != nil:
                return .failure(ConfigRefusal("\(value) is a string; write \(text) without quotes"))
            default:
                return .failure(ConfigRefusal("expected \(expected), found \(shown(value))"))
            }
        }
    }
}

extension ConfigType where Value == DisplaySize {
    static var displaySize: ConfigType<DisplaySize> {
        let sizes: [(String, DisplaySize)] = [("16x2", .sixteenByTwo), ("20x4", .twentyByFour)]
        let words = ConfigType<String>.word(sizes.map(\.0))
        return ConfigType(expected: words.expected) { value in
            words.convert(value).map { word in sizes.first { $0.0 == word }!.1 }
        }
    }
}

extension String {
    fileprivate var hasHexPrefix: Bool { hasPrefix("0x") || hasPrefix("0X") }
    fileprivate var replacingHexPrefix: String { hasHexPrefix ? String(dropFirst(2)) : self }
}
