/// Which PCF8574 output (P0...P7) drives which HD44780 pin on an LCD backpack.
///
/// The driver only writes: R/W is held low (write) in every byte, and outputs that drive nothing
/// stay low. With `backlight` set to `nil` the backlight is whatever the backpack's jumper makes
/// it, and `HD44780Display.setBacklight(_:)` changes nothing.
///
/// ``common`` and ``alternate`` cover nearly every backpack sold; a board profile writes any
/// other bit by bit in a `[display.pins]` table.
public struct PCF8574Wiring: Hashable, Sendable {
    /// RS: low for instructions, high for characters.
    public let registerSelect: Int
    /// R/W, always driven low; `nil` where the backpack ties it to ground.
    public let readWrite: Int?
    /// E: the controller latches a nibble when it falls.
    public let enable: Int
    /// D4, D5, D6, D7: the four data lines of the 4-bit interface.
    public let data: [Int]
    /// The transistor that switches the backlight, if the PCF8574 drives one.
    public let backlight: Int?
    /// Whether a low output lights the backlight (a PNP transistor). Most backpacks use an NPN
    /// transistor, lit by a high output.
    public let backlightActiveLow: Bool

    /// A wiring with each signal on output `P<n>` (0...7); `nil` unless every number is in range
    /// and no two signals share an output.
    public init?(
        registerSelect: Int, readWrite: Int?, enable: Int, data: (Int, Int, Int, Int),
        backlight: Int?, backlightActiveLow: Bool = false
    ) {
        let pins = [registerSelect, readWrite, enable, data.0, data.1, data.2, data.3, backlight].compactMap { $0 }
        guard pins.allSatisfy((0...7).contains), Set(pins).count == pins.count else { return nil }
        self.registerSelect = registerSelect
        self.readWrite = readWrite
        self.enable = enable
        self.data = [data.0, data.1, data.2, data.3]
        self.backlight = backlight
        self.backlightActiveLow = backlightActiveLow
    }

    /// P0 RS, P1 R/W, P2 E, P3 backlight (lit when high), P4-P7 D4-D7: the YwRobot "LCM1602"
    /// design that most backpacks copy (DFRobot, SainSmart, Funduino, Sunrom...), usually at
    /// 0x27 (PCF8574T) or 0x3F (PCF8574AT). The wiring LiquidCrystal_I2C and
    /// LiquidCrystal_PCF8574 hard-code.
    public static let common = PCF8574Wiring(
        registerSelect: 0, readWrite: 1, enable: 2, data: (4, 5, 6, 7), backlight: 3)!

    /// P0-P3 D4-D7, P4 E, P5 R/W, P6 RS, P7 backlight (lit when low): the mjkdz and GY-I2CLCD
    /// backpacks, often at 0x20. This is `I2Cexp_BOARD_MJKDZ` and `I2Cexp_BOARD_GYI2CLCD` in Bill
    /// Perry's hd44780 library (`hd44780ioClass/hd44780_I2Cexp.h`), and the constructor
    /// `LiquidCrystal_I2C(0x20, 4, 5, 6, 0, 1, 2, 3, 7, NEGATIVE)` of F. Malpartida's
    /// New LiquidCrystal, as the Arduino forum's "How to wire an mjkdz I2C board" thread gives it.
    public static let alternate = PCF8574Wiring(
        registerSelect: 6, readWrite: 5, enable: 4, data: (0, 1, 2, 3), backlight: 7,
        backlightActiveLow: true)!
}
