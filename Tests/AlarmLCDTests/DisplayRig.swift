import AlarmHardware
import AlarmLCD

/// A display on a ``RecordingI2CBus``, with an ``HD44780Model`` fed from the same transcript.
final class DisplayRig {
    let bus: RecordingI2CBus
    let display: HD44780Display
    var model: HD44780Model

    init(
        size: DisplaySize = .sixteenByTwo, address: PCF8574Address = .fixed(0x27),
        answering: Set<UInt8> = [0x27], wiring: PCF8574Wiring = .common,
        timing: HD44780Timing = .datasheet, backlight: Bool = false
    ) {
        bus = RecordingI2CBus(answering: answering)
        display = HD44780Display(
            size: size, bus: bus, address: address, wiring: wiring, timing: timing, delay: bus,
            backlight: backlight)
        model = HD44780Model(size: size, wiring: wiring)
    }

    /// The transcript since the last call, after the model has seen it.
    func take() -> [RecordingI2CBus.Event] {
        let events = bus.take()
        model.feed(events)
        return events
    }

    /// Initialises the display (a first, blank frame) and clears the transcript and the model's log.
    func initialise() async throws {
        try await display.show(DisplayFrame(size: display.size))
        _ = take()
        model.clearLog()
    }
}

/// A frame whose rows start with `rows` (plain ASCII).
func frame(_ size: DisplaySize, _ rows: String...) -> DisplayFrame {
    var frame = DisplayFrame(size: size)
    for (row, text) in rows.enumerated() { frame.write(Array(text.utf8), row: row) }
    return frame
}

/// The common wiring's initialisation with the backlight off, byte for byte (HD44780U figure 24).
let commonInitialisation: [UInt8] = [
    0x00,  // E, RS, R/W and backlight low
    0x34, 0x30,  // 0x3, E high then low
    0x34, 0x30,  // 0x3
    0x34, 0x30,  // 0x3
    0x24, 0x20,  // 0x2: 4-bit interface
    0x24, 0x20, 0x84, 0x80,  // function set 0x28: 4-bit, two lines, 5x8
    0x04, 0x00, 0x84, 0x80,  // display off 0x08
    0x04, 0x00, 0x14, 0x10,  // clear 0x01
    0x04, 0x00, 0x64, 0x60,  // entry mode 0x06
    0x04, 0x00, 0xC4, 0xC0,  // display on 0x0C
]
