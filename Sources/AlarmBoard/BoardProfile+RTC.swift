import TOMLConfig

extension BoardProfile {
    /// The board's real-time clock: whether it has one of its own, and how to add one. Without a
    /// battery-backed RTC the clock starts from the time saved at shutdown after a power cut.
    public struct RTC: Hashable, Sendable {
        /// The board has an RTC of its own (`rtc0` is expected): the Pi 5's `rtc-rpi` (kept
        /// through a power cut by a battery on its J5 connector), a PC's CMOS clock.
        public var builtIn: Bool
        /// The `config.txt` line that adds one (`dtoverlay=i2c-rtc,ds3231`: a DS3231 module on
        /// I2C bus 1, through the kernel's `rtc-ds1307` driver), for the self-test's hint.
        public var add: String?

        public init(builtIn: Bool = false, add: String? = nil) {
            self.builtIn = builtIn
            self.add = add
        }
    }
}

extension BoardProfile.RTC {
    init(reading reader: inout ConfigReader) throws(ConfigError) {
        _ = reader.hasTable("rtc")
        self.init(
            builtIn: try reader.value("rtc.builtin", as: .boolean, default: false),
            add: try reader.optional("rtc.add", as: .nonEmptyString))
    }
}
