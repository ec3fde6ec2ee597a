/// Which PCF8574 output (P0...P7) drives which HD44780 pin: the decoder's view of the backpack.
public struct BackpackPins: Sendable, Equatable {
    public var registerSelect: Int
    public var readWrite: Int
    public var enable: Int
    /// D4, D5, D6, D7.
    public var data: [Int]
    public var backlight: Int
    /// Whether a low output lights the backlight.
    public var backlightActiveLow: Bool

    /// P0 RS, P1 R/W, P2 E, P3 backlight (lit when high), P4-P7 D4-D7: most backpacks.
    public static let common = BackpackPins(
        registerSelect: 0, readWrite: 1, enable: 2, data: [4, 5, 6, 7], backlight: 3, backlightActiveLow: false)
    /// P0-P3 D4-D7, P4 E, P5 R/W, P6 RS, P7 backlight (lit when low): mjkdz-style backpacks.
    public static let alternate = BackpackPins(
        registerSelect: 6, readWrite: 5, enable: 4, data: [0, 1, 2, 3], backlight: 7, backlightActiveLow: true)

    /// `common` or `alternate`, as board profiles name them.
    public static func named(_ name: String) -> BackpackPins? {
        switch name {
        case "common": .common
        case "alternate": .alternate
        default: nil
        }
    }

    func isSet(_ pin: Int, in port: UInt8) -> Bool { port & (1 << UInt8(pin)) != 0 }

    func nibble(of port: UInt8) -> UInt8 {
        var value: UInt8 = 0
        for (bit, pin) in data.enumerated() where isSet(pin, in: port) { value |= 1 << UInt8(bit) }
        return value
    }
}

/// An HD44780 controller rebuilt from the bytes written to its PCF8574 backpack.
///
/// It does what the chip does: a nibble is latched on each falling edge of E (with R/W low),
/// from power-on in 8-bit mode (each nibble a whole instruction, as D0-D3 are not wired), so the
/// initialisation nibbles 3, 3, 3, 2 reach 4-bit mode from any state, also when a running
/// 4-bit stream is re-initialised. Then it keeps display RAM (128 bytes), character RAM,
/// the address counter, entry mode, display shift and the display-on bit.
///
/// - Important: Bytes must be fed from before the driver's initialisation: a decoder that
///   starts in the middle of a 4-bit stream reads nonsense until the next one (see
///   ``initialised``).
public struct HD44780Decoder: Sendable {
    public let rows: Int
    public let columns: Int
    public let pins: BackpackPins

    /// Whether the backlight output is lit; nil before the first byte.
    public private(set) var backlight: Bool?
    /// The display-on bit of the last Display Control instruction (off at power-on).
    public private(set) var displayOn = false
    /// Characters written to display RAM.
    public private(set) var displayWrites = 0
    /// Whether a switch to 4-bit mode was seen.
    public private(set) var initialised = false
    /// Bytes fed so far.
    public private(set) var bytes = 0

    private var displayRAM = [UInt8](repeating: 0x20, count: 0x80)
    private var characterRAM = [UInt8](repeating: 0, count: 0x40)
    private var addressCounter = 0
    private var characterAddress = 0
    private var inCharacterRAM = false
    private var increment = true
    private var shiftOnWrite = false
    private var shift = 0
    private var twoLines = true
    private var fourBit = false
    private var highNibble: UInt8?
    private var previous: UInt8?

    public init(rows: Int = 2, columns: Int = 16, pins: BackpackPins = .common) {
        self.rows = rows
        self.columns = columns
        self.pins = pins
    }

    /// The character codes each row shows now (display RAM through the display shift).
    public var screen: [[UInt8]] {
        (0..<rows).map { row in
            let line = row % 2 == 0 ? 0x00 : 0x40
            let first = row >= 2 ? columns : 0
            return (0..<columns).map { column in
                let position = first + column - shift
                return displayRAM[line + ((position % 40) + 40) % 40]
            }
        }
    }

    /// The 8 rows of custom glyph `slot` (0...7).
    public func glyph(_ slot: Int) -> [UInt8] {
        Array(characterRAM[(slot * 8)..<(slot * 8 + 8)])
    }

    /// Feeds one byte written to the backpack (its eight outputs).
    public mutating func receive(_ port: UInt8) {
        bytes += 1
        backlight = pins.isSet(pins.backlight, in: port) != pins.backlightActiveLow
        defer { previous = port }
        guard let previous, pins.isSet(pins.enable, in: previous), !pins.isSet(pins.enable, in: port) else { return }
        guard !pins.isSet(pins.readWrite, in: previous) else { return }
        latch(pins.nibble(of: previous), registerSelect: pins.isSet(pins.registerSelect, in: previous))
    }

    private mutating func latch(_ nibble: UInt8, registerSelect: Bool) {
        guard fourBit else {
            let value = nibble << 4
            if registerSelect { write(value) } else { execute(value) }
            return
        }
        guard let high = highNibble else {
            highNibble = nibble
            return
        }
        highNibble = nil
        let value = high << 4 | nibble
        if registerSelect { write(value) } else { execute(value) }
    }

    private mutating func execute(_ instruction: UInt8) {
        switch instruction {
        case 0x01:
            displayRAM = [UInt8](repeating: 0x20, count: 0x80)
            addressCounter = 0
            inCharacterRAM = false
            increment = true
            shift = 0
        case 0x02, 0x03:
            addressCounter = 0
            inCharacterRAM = false
            shift = 0
        case 0x04...0x07:
            increment = instruction & 0x02 != 0
            shiftOnWrite = instruction & 0x01 != 0
        case 0x08...0x0F:
            displayOn = instruction & 0x04 != 0
        case 0x10...0x1F:
            let right = instruction & 0x04 != 0
            if instruction & 0x08 != 0 {
                shift += right ? 1 : -1
            } else {
                addressCounter = step(addressCounter, forward: right)
            }
        case 0x20...0x3F:
            twoLines = instruction & 0x08 != 0
            let eightBit = instruction & 0x10 != 0
            if !fourBit && !eightBit { initialised = true }
            fourBit = !eightBit
            highNibble = nil
        case 0x40...0x7F:
            characterAddress = Int(instruction & 0x3F)
            inCharacterRAM = true
        case 0x80...0xFF:
            addressCounter = Int(instruction & 0x7F)
            inCharacterRAM = false
        default:
            break
        }
    }

    private mutating func write(_ value: UInt8) {
        if inCharacterRAM {
            characterRAM[characterAddress] = value
            characterAddress = (characterAddress + (increment ? 1 : -1)) & 0x3F
            return
        }
        displayRAM[addressCounter] = value
        displayWrites += 1
        addressCounter = step(addressCounter, forward: increment)
        if shiftOnWrite { shift += increment ? -1 : 1 }
    }

    /// The next display address: two-line mode has 0x00-0x27 and 0x40-0x67, one-line 0x00-0x4F.
    private func step(_ address: Int, forward: Bool) -> Int {
        if twoLines {
            if forward {
                return switch address {
                case 0x27: 0x40
                case 0x67...: 0x00
                default: address + 1
                }
            }
            return switch address {
            case 0x00: 0x67
            case 0x40: 0x27
            default: address - 1
            }
        }
        return forward ? (address >= 0x4F ? 0 : address + 1) : (address == 0 ? 0x4F : address - 1)
    }
}

/// The probe's rendering of LCD character codes, the same as alarmd's `HD44780Text.preview`:
/// the A00 ROM's ASCII range (0x5C is `¥`), its few symbols (`°`, arrows, Greek letters),
/// custom glyph slots 0-7 (and their aliases 8-15) as `①`...`⑧`, anything else as `█`.
/// With `ascii`, every character outside printable ASCII becomes `?`.
public enum LCDText {
    public static func render(_ codes: [UInt8], ascii: Bool = false) -> String {
        String(codes.map { code -> Character in
            if ascii {
                return (0x20...0x7D).contains(code) && code != 0x5C ? Character(Unicode.Scalar(code)) : "?"
            }
            return switch code {
            case 0x00...0x0F: Character(Unicode.Scalar(0x2460 + UInt32(code & 0x07))!)
            case 0x5C: "¥"
            case 0x20...0x7D: Character(Unicode.Scalar(code))
            default: symbols[code] ?? "█"
            }
        })
    }

    private static let symbols: [UInt8: Character] = [
        0x7E: "→", 0x7F: "←", 0xDF: "°", 0xE0: "α", 0xE1: "ä", 0xE2: "ß", 0xE3: "ε", 0xE4: "µ",
        0xE5: "σ", 0xE6: "ρ", 0xE8: "√", 0xEC: "¢", 0xEE: "ñ", 0xEF: "ö", 0xF2: "θ", 0xF3: "∞",
        0xF4: "Ω", 0xF5: "ü", 0xF6: "Σ", 0xF7: "π", 0xFD: "÷", 0xFF: "█",
    ]
}
