import AlarmHardware

/// Which PCF8574 output bit drives which HD44780 pin on an I2C LCD backpack.
///
/// Two layouts cover nearly every backpack sold: ``common`` (the PCF8574T board found on most
/// "1602 I2C" modules) and ``alternate`` (the older "mjkdz"/GY-LCD-V1 board). Anything else is
/// written bit by bit in a `[display.pins]` table.
public struct BackpackWiring: Hashable, Sendable {
    /// Register select (0 = command, 1 = data).
    public var rs: Int
    /// Read/write (0 = write); held low.
    public var rw: Int
    /// Enable strobe.
    public var e: Int
    public var backlight: Int
    /// The four data lines of the 4-bit interface, D4 to D7.
    public var d4: Int, d5: Int, d6: Int, d7: Int
    /// The backlight is on when its bit is 0.
    public var backlightActiveLow: Bool

    public init(rs: Int, rw: Int, e: Int, backlight: Int, d4: Int, d5: Int, d6: Int, d7: Int, backlightActiveLow: Bool = false) {
        self.rs = rs
        self.rw = rw
        self.e = e
        self.backlight = backlight
        self.d4 = d4
        self.d5 = d5
        self.d6 = d6
        self.d7 = d7
        self.backlightActiveLow = backlightActiveLow
    }

    /// P0 RS, P1 RW, P2 E, P3 backlight (on when high), P4-P7 D4-D7.
    public static let common = BackpackWiring(rs: 0, rw: 1, e: 2, backlight: 3, d4: 4, d5: 5, d6: 6, d7: 7)

    /// P0-P3 D4-D7, P4 E, P5 RW, P6 RS, P7 backlight (on when low).
    public static let alternate = BackpackWiring(rs: 6, rw: 5, e: 4, backlight: 7, d4: 0, d5: 1, d6: 2, d7: 3, backlightActiveLow: true)

    public static let presets: [(name: String, wiring: BackpackWiring)] = [("common", .common), ("alternate", .alternate)]

    /// The eight pins with their profile keys, in the order a `[display.pins]` table lists them.
    public var bits: [(key: String, bit: Int)] {
        [("rs", rs), ("rw", rw), ("e", e), ("backlight", backlight), ("d4", d4), ("d5", d5), ("d6", d6), ("d7", d7)]
    }
}

extension BoardProfile {
    /// An HD44780 character LCD behind a PCF8574 backpack on an I2C bus.
    public struct Display: Hashable, Sendable {
        /// The N of `/dev/i2c-N`.
        public var bus: Int
        public var address: DisplayAddress
        public var size: DisplaySize
        public var wiring: BackpackWiring
        /// Slower HD44780 timings for clone controllers that garble text at the datasheet's.
        public var compatibilityMode: Bool

        public init(bus: Int, address: DisplayAddress = .auto, size: DisplaySize = .sixteenByTwo, wiring: BackpackWiring = .common, compatibilityMode: Bool = false) {
            self.bus = bus
            self.address = address
            self.size = size
            self.wiring = wiring
            self.compatibilityMode = compatibilityMode
        }

        public var devicePath: String { "/dev/i2c-\(bus)" }
    }

    /// The backpack's 7-bit I2C address.
    public enum DisplayAddress: Hashable, Sendable, CustomStringConvertible {
        /// The display backend looks for the backpack at the two factory addresses, 0x27
        /// (PCF8574T) then 0x3F (PCF8574AT) (see `board/README.md`).
        case auto
        case fixed(UInt8)

        public var description: String {
            switch self {
            case .auto: "auto"
            case .fixed(let address): hexAddress(Int(address))
            }
        }
    }
}

/// `0x27`.
func hexAddress(_ address: Int) -> String {
    let hex = String(address, radix: 16)
    return "0x" + (hex.count < 2 ? "0" : "") + hex
}
