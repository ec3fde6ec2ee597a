import TOMLConfig

extension BoardProfile {
    /// The sunrise light: a lamp or LED strip switched by a MOSFET from one channel of a PWM
    /// controller, driven through the kernel's `/sys/class/pwm`. Optional: a board without a
    /// `[light]` table has none.
    public struct Light: Hashable, Sendable {
        /// `pwmchipN`, or the controller's device name (`fe20c000.pwm`), which does not change
        /// with the kernel's numbering of its chips.
        public var chip: String
        public var channel: Int
        /// The PWM frequency in hertz.
        public var frequency: Int
        /// The `config.txt` line that gives the header pin to the PWM controller, for the
        /// self-test's hint (`dtoverlay=pwm,pin=12,func=4`).
        public var enable: String?

        public init(chip: String, channel: Int = 0, frequency: Int = 1_000, enable: String? = nil) {
            self.chip = chip
            self.channel = channel
            self.frequency = frequency
            self.enable = enable
        }
    }
}

extension BoardProfile.Light {
    init(reading reader: inout ConfigReader) throws(ConfigError) {
        self.init(
            chip: try reader.value("light.chip", as: .nonEmptyString, default: "pwmchip0"),
            channel: try reader.value("light.channel", as: .integer(in: 0...63), default: 0),
            frequency: try reader.value("light.frequency", as: .integer(in: 100...40_000), default: 1_000),
            enable: try reader.optional("light.enable", as: .nonEmptyString))
    }
}
