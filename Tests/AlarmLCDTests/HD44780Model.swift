import AlarmHardware
import AlarmLCD

/// An HD44780 behind a PCF8574, driven by a transcript of bus bytes and waits: it latches a
/// nibble on each falling edge of E, runs the datasheet's instructions, and keeps its display
/// and character RAM, so tests can read the screen the bytes produce.
///
/// It also notes every breach of the datasheet's rules in ``violations``: E rising while the
/// controller is still busy (each byte is taken to last 45 µs, one SMBus transaction at 400 kHz;
/// waits count in full), RS changing in the same byte as E rises (tAS), or the data lines
/// changing in the same byte as E falls (tH).
struct HD44780Model {
    let wiring: PCF8574Wiring
    let size: DisplaySize

    private(set) var violations: [String] = []
    /// Instructions executed (RS low), in order, since ``clearLog()``.
    private(set) var instructions: [UInt8] = []
    /// Characters written (RS high) since ``clearLog()``.
    private(set) var characters: [UInt8] = []
    private(set) var backlightOn: Bool?
    private(set) var displayOn = false

    private var ddram = [UInt8](repeating: 0x20, count: 0x80)
    private var cgram = [UInt8](repeating: 0, count: 64)
    private var addressCounter = 0
    private var inCharacterRAM = false
    private var fourBit = false
    private var twoLines = false
    private var resetNibbles = 0
    private var highNibble: UInt8?
    private var outputs: UInt8?
    /// Time the controller still needs before it may see E rise: 40 ms from power-on.
    private var busy: Duration = .milliseconds(40)

    init(size: DisplaySize, wiring: PCF8574Wiring = .common) {
        self.size = size
        self.wiring = wiring
    }

    mutating func clearLog() {
        instructions = []
        characters = []
    }

    /// The codes each row shows.
    var screen: [[UInt8]] {
        (0..<size.rows).map { row in
            let start = (row % 2 == 0 ? 0x00 : 0x40) + (row >= 2 ? size.columns : 0)
            return Array(ddram[start..<(start + size.columns)])
        }
    }

    var lines: [String] { screen.map(HD44780Text.preview) }

    func glyph(slot: Int) -> [UInt8] {
        Array(cgram[(slot * 8)..<(slot * 8 + 8)])
    }

    /// Cursor moves (Set DDRAM Address) among ``instructions``.
    var cursorMoves: [UInt8] {
        instructions.filter { $0 & 0x80 != 0 }.map { $0 & 0x7F }
    }

    mutating func feed(_ events: [RecordingI2CBus.Event]) {
        for event in events {
            switch event {
            case .delay(let duration): busy -= duration
            case .sent(let byte, _): port(byte)
            case .received: break
            }
        }
    }

    private func bit(_ pin: Int?, of byte: UInt8) -> Bool {
        guard let pin else { return false }
        return byte & (1 << UInt8(pin)) != 0
    }

    private func nibble(of byte: UInt8) -> UInt8 {
        var value: UInt8 = 0
        for (index, pin) in wiring.data.enumerated() where bit(pin, of: byte) { value |= 1 << UInt8(index) }
        return value
    }

    private mutating func port(_ byte: UInt8) {
        busy -= .microseconds(45)
        if wiring.backlight != nil { backlightOn = bit(wiring.backlight, of: byte) != wiring.backlightActiveLow }
        if bit(wiring.readWrite, of: byte) { violations.append("R/W high in \(hex(byte))") }
        defer { outputs = byte }
        guard let previous = outputs else { return }
        let wasHigh = bit(wiring.enable, of: previous), isHigh = bit(wiring.enable, of: byte)
        if !wasHigh && isHigh {
            if bit(wiring.registerSelect, of: previous) != bit(wiring.registerSelect, of: byte) {
                violations.append("RS changed as E rose: \(hex(previous)) -> \(hex(byte))")
            }
            if busy > .zero { violations.append("E rose \(busy) early in \(hex(byte))") }
        } else if wasHigh && !isHigh {
            if nibble(of: previous) != nibble(of: byte)
                || bit(wiring.registerSelect, of: previous) != bit(wiring.registerSelect, of: byte) {
                violations.append("data changed as E fell: \(hex(previous)) -> \(hex(byte))")
            }
            latch(nibble(of: previous), registerSelect: bit(wiring.registerSelect, of: previous))
        }
    }

    private mutating func latch(_ nibble: UInt8, registerSelect: Bool) {
        guard fourBit else {
            // 8-bit mode: D0-D3 are not wired, so each nibble is a whole instruction.
            guard !registerSelect else { return write(nibble << 4) }
            switch nibble {
            case 0x3:
                resetNibbles += 1
                busy = resetNibbles == 1 ? .microseconds(4_100) : resetNibbles == 2 ? .microseconds(100) : .microseconds(37)
            case 0x2:
                if resetNibbles < 3 { violations.append("4-bit mode after \(resetNibbles) reset nibbles") }
                fourBit = true
                busy = .microseconds(37)
            default:
                violations.append("instruction \(hex(nibble << 4)) in 8-bit mode")
            }
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
        instructions.append(instruction)
        busy = .microseconds(37)
        switch instruction {
        case 0x01:
            ddram = [UInt8](repeating: 0x20, count: 0x80)
            addressCounter = 0
            inCharacterRAM = false
            busy = .microseconds(1_520)
        case 0x02, 0x03:
            addressCounter = 0
            inCharacterRAM = false
            busy = .microseconds(1_520)
        case 0x04...0x07:
            if instruction != 0x06 { violations.append("entry mode \(hex(instruction))") }
        case 0x08...0x0F:
            displayOn = instruction & 0x04 != 0
        case 0x20...0x3F:
            if instruction & 0x10 != 0 {
                // Two 0x3 nibbles: the controller is in 8-bit mode again, as the datasheet's
                // initialisation by instruction relies on (a driver re-initialising a display it
                // had running); they count as the first two reset nibbles.
                fourBit = false
                resetNibbles = 2
                return
            }
            twoLines = instruction & 0x08 != 0
        case 0x40...0x7F:
            addressCounter = Int(instruction & 0x3F)
            inCharacterRAM = true
        case 0x80...0xFF:
            addressCounter = Int(instruction & 0x7F)
            inCharacterRAM = false
        default:
            violations.append("unexpected instruction \(hex(instruction))")
        }
    }

    private mutating func write(_ value: UInt8) {
        busy = .microseconds(41)
        characters.append(value)
        if inCharacterRAM {
            cgram[addressCounter] = value
            addressCounter = (addressCounter + 1) & 0x3F
        } else {
            ddram[addressCounter] = value
            // Two-line mode: 0x27 is followed by 0x40, and 0x67 by 0x00.
            addressCounter = switch addressCounter {
            case 0x27 where twoLines: 0x40
            case 0x67 where twoLines: 0x00
            default: (addressCounter + 1) & 0x7F
            }
        }
    }
}
