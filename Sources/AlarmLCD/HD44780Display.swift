import AlarmHardware

/// An HD44780 character LCD behind a PCF8574 I2C backpack: the ``CharacterDisplay`` of a real board.
///
/// ```swift
/// let display = HD44780Display(size: .twentyByFour, bus: LinuxI2CBus(number: 1))
/// try await display.define(bellGlyph, slot: 0)
/// var frame = DisplayFrame(size: display.size)
/// frame.write(HD44780Text.encode("07:00"), row: 0)
/// try await display.show(frame)          // the first use finds and initialises the display
/// ```
///
/// Bus transfers and waits run on the actor's own thread, never on Swift's cooperative pool.
/// The first call finds the backpack, initialises the controller and uploads the glyphs; later
/// frames rewrite only changed cells. A call that fails forgets the screen's state, so the next
/// call initialises everything again: a re-plugged backpack recovers at the caller's next retry.
///
/// - Important: The driver cannot read the display back (R/W stays low). If the LCD loses power
///   while the PCF8574 keeps it, no transfer fails and the screen stays blank until an error or
///   a restart makes the driver initialise it again.
public actor HD44780Display: CharacterDisplay {
    public nonisolated let size: DisplaySize

    private let executor = DisplayThreadExecutor()
    private let bus: any I2CBus
    private let addressChoice: PCF8574Address
    private let wiring: PCF8574Wiring
    private let timing: HD44780Timing
    private let delay: any Delay
    private let layout: HD44780Layout
    /// The outputs for each nibble, under this wiring.
    private let nibbles: [UInt8]

    /// What the caller last asked for; every byte sent carries it.
    private var backlight: Bool
    /// Every glyph defined so far, uploaded again at each initialisation.
    private var glyphs: [Int: Glyph] = [:]

    // What the display holds, as far as the driver knows; reset by `forget()` after an error.
    /// The display RAM's characters; `nil` until the display is initialised.
    private var shadow: [[UInt8]]?
    /// The PCF8574's address found at the last initialisation.
    private var chip: UInt8 = 0
    /// The last byte the PCF8574 was sent: its outputs now.
    private var outputs: UInt8?
    /// The address counter, while it points into display RAM at a known place.
    private var cursor: UInt8?
    /// The glyphs in character RAM since the last initialisation.
    private var uploaded: [Int: Glyph] = [:]

    /// A display of `size` on `bus`; nothing is sent yet. `size` beyond one controller (4 rows,
    /// 80 cells, 20 columns on 4 rows) traps. The backlight starts off: a bedside display does
    /// not light up by itself.
    public init(
        size: DisplaySize, bus: any I2CBus, address: PCF8574Address = .automatic,
        wiring: PCF8574Wiring = .common, timing: HD44780Timing = .datasheet,
        delay: any Delay = ThreadSleepDelay(), backlight: Bool = false
    ) {
        self.size = size
        self.bus = bus
        self.addressChoice = address
        self.wiring = wiring
        self.timing = timing
        self.delay = delay
        self.backlight = backlight
        layout = HD44780Layout(size: size)
        nibbles = wiring.nibbleTable()
    }

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// The backpack's address while the display is initialised and answering; `nil` before the
    /// first use and after an error.
    public var address: UInt8? { shadow == nil ? nil : chip }

    /// Shows `frame`, sending only the cells that differ from what the display holds (see
    /// `HD44780Layout`). A frame of another size shows its top-left part, padded with spaces.
    /// - Throws: ``HardwareError`` from the bus, or `.deviceUnavailable` when probing finds no
    ///   backpack.
    public func show(_ frame: DisplayFrame) async throws(HardwareError) {
        try recovering { () throws(HardwareError) in
            try prepare()
            let target = layout.fit(frame)
            for write in layout.writes(from: shadow, to: target) {
                if cursor != write.address {
                    try instruction(Instruction.setDisplayAddress | write.address)
                }
                for code in write.codes { try character(code) }
                cursor = write.address &+ UInt8(write.codes.count)
            }
            shadow = target
        }
    }

    /// Switches the backlight: one bus byte, the PCF8574's outputs with only the backlight's
    /// output changed. Nothing is sent when the wiring has no backlight output.
    /// - Throws: as ``show(_:)``. The new state is kept and applied at the next initialisation.
    public func setBacklight(_ on: Bool) async throws(HardwareError) {
        backlight = on
        try recovering { () throws(HardwareError) in
            guard shadow != nil, let outputs else { return try prepare() }
            let mask = wiring.backlightBits(true) | wiring.backlightBits(false)
            let next = (outputs & ~mask) | wiring.backlightBits(on)
            if next != outputs { try send(next) }
        }
    }

    /// Loads `glyph` into character RAM slot `slot` (0...7); cells showing code `slot` change at
    /// once. A slot already holding this glyph since the last initialisation is not sent again.
    /// - Precondition: `slot` is in 0...7.
    /// - Throws: as ``show(_:)``. The glyph is kept and uploaded at the next initialisation.
    public func define(_ glyph: Glyph, slot: Int) async throws(HardwareError) {
        precondition((0...7).contains(slot), "an HD44780 has 8 glyph slots, not \(slot + 1)")
        glyphs[slot] = glyph
        try recovering { () throws(HardwareError) in
            guard shadow != nil else { return try prepare() }
            if uploaded[slot] != glyph { try upload(glyph, slot: slot) }
        }
    }

    /// Forgets the display's state: the next call finds and initialises the controller again,
    /// uploads the glyphs and writes every cell. What another program (a self-test) drew is then
    /// wholly replaced, rather than patched where this driver believes cells changed.
    public func forgetContents() async {
        forget()
    }

    // MARK: - Initialisation and recovery

    /// Runs `body`; after a failure, forgets everything about the display's state.
    private func recovering(_ body: () throws(HardwareError) -> Void) throws(HardwareError) {
        do {
            try body()
        } catch {
            forget()
            throw error
        }
    }

    private func forget() {
        shadow = nil
        outputs = nil
        cursor = nil
        uploaded = [:]
    }

    /// Finds and initialises the display and uploads the glyphs, unless that is already done.
    private func prepare() throws(HardwareError) {
        guard shadow == nil else { return }
        chip = try findChip()
        try initialise()
        for (slot, glyph) in glyphs.sorted(by: { $0.key < $1.key }) {
            try upload(glyph, slot: slot)
        }
        shadow = layout.blank
    }

    private func findChip() throws(HardwareError) -> UInt8 {
        switch addressChoice {
        case .fixed(let address):
            return address
        case .probe(let candidates):
            var lastError: HardwareError?
            for candidate in candidates {
                do throws(HardwareError) {
                    _ = try bus.receiveByte(from: candidate)
                    return candidate
                } catch where error.kind == .noAcknowledge {
                    lastError = error
                }
            }
            let tried = candidates.map(I2CAddressFormat.hex).joined(separator: ",")
            throw HardwareError(.deviceUnavailable, device: "\(bus.name)@\(tried)", errno: lastError?.errno)
        }
    }

    /// HD44780U datasheet, figure 24: initialising by instruction for the 4-bit interface. The
    /// three 0x3 nibbles bring the controller into 8-bit mode from any state, even halfway
    /// through a byte, and 0x2 then switches it to 4 bits.
    private func initialise() throws(HardwareError) {
        outputs = nil
        cursor = nil
        // E, RS and R/W low: a PCF8574 powers up with every output high (E high, R/W "read").
        try send(wiring.backlightBits(backlight))
        wait(timing.powerOn)
        try nibble(0x3, registerSelect: false)
        wait(timing.firstReset)
        try nibble(0x3, registerSelect: false)
        wait(timing.secondReset)
        try nibble(0x3, registerSelect: false)
        wait(timing.instruction)
        try nibble(0x2, registerSelect: false)
        wait(timing.instruction)
        try instruction(Instruction.functionSet4Bit | (size.rows > 1 ? Instruction.twoLines : 0))
        try instruction(Instruction.displayOff)
        try instruction(Instruction.clear, execution: timing.clear)
        try instruction(Instruction.entryModeIncrement)
        try instruction(Instruction.displayOn)
        cursor = 0  // Clear Display leaves the address counter at 0
    }

    /// Writes a glyph's 8 rows to character RAM. The address counter is left there, so the next
    /// frame starts with a cursor move (made only then, and only if characters follow).
    private func upload(_ glyph: Glyph, slot: Int) throws(HardwareError) {
        try instruction(Instruction.setGlyphAddress | UInt8(slot << 3))
        cursor = nil
        for row in glyph.rows { try character(row) }
        uploaded[slot] = glyph
    }

    // MARK: - Bytes on the bus

    private func instruction(_ value: UInt8, execution: Duration? = nil) throws(HardwareError) {
        try nibble(value >> 4, registerSelect: false)
        try nibble(value & 0x0F, registerSelect: false)
        wait(execution ?? timing.instruction)
    }

    private func character(_ code: UInt8) throws(HardwareError) {
        try nibble(code >> 4, registerSelect: true)
        try nibble(code & 0x0F, registerSelect: true)
        wait(timing.instruction)
    }

    /// One nibble: the outputs with E high, then the same with E low (the controller latches on
    /// the falling edge). Each byte takes at least 20 µs on the bus, far beyond the 450 ns E
    /// must stay high. When RS changes, the outputs are first sent with E low, so RS settles
    /// before E rises (tAS, 40 ns); libraries that raise E together with RS rely on luck.
    private func nibble(_ value: UInt8, registerSelect: Bool) throws(HardwareError) {
        let rs = wiring.registerSelectMask
        let port = nibbles[Int(value)] | (registerSelect ? rs : 0) | wiring.backlightBits(backlight)
        if outputs.map({ ($0 ^ port) & rs != 0 }) ?? true { try send(port) }
        try send(port | wiring.enableMask)
        try send(port)
    }

    private func send(_ byte: UInt8) throws(HardwareError) {
        try bus.sendByte(byte, to: chip)
        outputs = byte
    }

    private func wait(_ duration: Duration) {
        if duration > timing.coveredByBus { delay.delay(for: duration) }
    }
}

/// HD44780 instruction codes (datasheet, table 6).
private enum Instruction {
    static let clear: UInt8 = 0x01
    /// I/D = 1: the address counter counts up; S = 0: the display does not shift.
    static let entryModeIncrement: UInt8 = 0x06
    static let displayOff: UInt8 = 0x08
    /// Display on, cursor off, blinking off.
    static let displayOn: UInt8 = 0x0C
    /// DL = 0 (4-bit), F = 0 (5x8 dots); N is ``twoLines``.
    static let functionSet4Bit: UInt8 = 0x20
    static let twoLines: UInt8 = 0x08
    static let setGlyphAddress: UInt8 = 0x40
    static let setDisplayAddress: UInt8 = 0x80
}
