import VMProbeKit

/// The bytes a driver sends to a PCF8574 backpack for HD44780 operations, written for the tests
/// from the datasheet (like alarmd's driver, but independently): each nibble is the outputs
/// with E high then with E low, preceded by the outputs with E low when RS changes.
struct BackpackEncoder {
    var pins: BackpackPins = .common
    var backlight = true
    private(set) var bytes: [UInt8] = []
    private var last: UInt8?

    init(pins: BackpackPins = .common) {
        self.pins = pins
    }

    private func port(_ nibble: UInt8, registerSelect: Bool) -> UInt8 {
        var value: UInt8 = 0
        for (bit, pin) in pins.data.enumerated() where nibble & (1 << UInt8(bit)) != 0 { value |= 1 << UInt8(pin) }
        if registerSelect { value |= 1 << UInt8(pins.registerSelect) }
        if backlight != pins.backlightActiveLow { value |= 1 << UInt8(pins.backlight) }
        return value
    }

    mutating func send(_ byte: UInt8) {
        bytes.append(byte)
        last = byte
    }

    mutating func nibble(_ value: UInt8, registerSelect: Bool = false) {
        let outputs = port(value, registerSelect: registerSelect)
        let rs: UInt8 = 1 << UInt8(pins.registerSelect)
        if last.map({ ($0 ^ outputs) & rs != 0 }) ?? true { send(outputs) }
        send(outputs | 1 << UInt8(pins.enable))
        send(outputs)
    }

    mutating func instruction(_ value: UInt8) {
        nibble(value >> 4)
        nibble(value & 0x0F)
    }

    mutating func character(_ code: UInt8) {
        nibble(code >> 4, registerSelect: true)
        nibble(code & 0x0F, registerSelect: true)
    }

    /// Power-on initialisation for 4 bits, two lines, display on, cleared.
    mutating func initialise() {
        last = nil
        send(port(0, registerSelect: false))
        for reset: UInt8 in [0x3, 0x3, 0x3, 0x2] { nibble(reset) }
        for value: UInt8 in [0x28, 0x08, 0x01, 0x06, 0x0C] { instruction(value) }
    }

    /// `text` from `column` of `row` on a 16x2.
    mutating func write(_ text: String, row: Int, column: Int = 0) {
        instruction(0x80 | UInt8((row == 0 ? 0x00 : 0x40) + column))
        for code in text.utf8 { character(code) }
    }

    mutating func defineGlyph(_ slot: Int, rows: [UInt8]) {
        instruction(0x40 | UInt8(slot << 3))
        for row in rows { character(row) }
    }

    mutating func setBacklight(_ on: Bool) {
        backlight = on
        if let last {
            let mask: UInt8 = 1 << UInt8(pins.backlight)
            send((last & ~mask) | (on != pins.backlightActiveLow ? mask : 0))
        }
    }

    /// Trace lines for the bytes from `index` on, one every `spacing` nanoseconds from `start`
    /// (trace clock), as the kernel prints smbus_write for send byte.
    func traceLines(from index: Int = 0, startNanoseconds: Int64, spacing: Int64 = 100_000, address: Int = 0x27, adapter: Int = 0) -> [String] {
        bytes[index...].enumerated().map { offset, byte in
            TraceText.smbusWrite(
                nanoseconds: startNanoseconds + Int64(offset) * spacing, adapter: adapter, address: address, command: byte)
        }
    }
}

/// Lines in the kernel's trace format.
enum TraceText {
    static let header = """
        # tracer: nop
        #
        # entries-in-buffer/entries-written: 412/412   #P:2
        #
        #                                _-----=> irqs-off/BH-disabled
        #                               / _----=> need-resched
        #                              | / _---=> hardirq/softirq
        #                              || / _--=> preempt-depth
        #                              ||| / _-=> migrate-disable
        #                              |||| /     delay
        #           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
        #              | |         |   |||||     |         |
        """

    /// `%lu.%06lu` seconds, as trace output prints nanosecond clocks (microseconds shown).
    static func stamp(_ nanoseconds: Int64) -> String {
        let micro = nanoseconds / 1000
        let fraction = String(micro % 1_000_000)
        return "\(micro / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    static func smbusWrite(nanoseconds: Int64, adapter: Int, address: Int, command: UInt8, task: String = "alarmd-412", protocolName: String = "BYTE") -> String {
        let hexAddress = String(address, radix: 16)
        let flags = "0000"
        return "\(String(repeating: " ", count: max(0, 16 - task.count)))\(task)     [001] .....   \(stamp(nanoseconds)): smbus_write: i2c-\(adapter) a=\(String(repeating: "0", count: 3 - hexAddress.count))\(hexAddress) f=\(flags) c=\(String(command, radix: 16)) \(protocolName) l=0 []"
    }
}
