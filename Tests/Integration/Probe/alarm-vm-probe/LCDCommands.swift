import ArgumentParser
import VMProbeKit

struct LCD: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lcd",
        abstract: "Decode the HD44780 screen from a kernel smbus_write trace.",
        discussion: """
            Reads the smbus/smbus_write events of TRACE_FILE (a copy of /sys/kernel/tracing/trace, \
            or trace_pipe streamed into a file), keeps the SMBus send-byte writes (protocol BYTE, \
            the byte in c=) to --address, and replays them through a PCF8574 backpack into an \
            HD44780 model. The trace must include alarmd's initialisation of the display.

            Instants: trace timestamps count in the trace clock; realtime = trace timestamp + \
            offset. With --clock-offset the offset is given (realtime − trace clock, seconds). \
            Otherwise the trace clock is --trace-clock, or the one selected in \
            TRACEFS/trace_clock, and must be mono, mono_raw, boot or tai; the offset is that \
            clock's distance from CLOCK_REALTIME measured now, which holds if the realtime clock \
            was not set since the events. The default trace clock, local, cannot be converted: \
            `echo mono > /sys/kernel/tracing/trace_clock` before enabling the event.

            text is each row at --at (default: after the last byte); custom glyphs show as ①-⑧ \
            (with --ascii, as ?). screens lists each distinct screen once no byte followed for \
            --settle-ms, with the instant of its last byte (at most 200, the last ones).
            """)

    @Argument(help: "The trace text file.")
    var traceFile: String

    @Option(help: "The backpack's 7-bit address (0x27 or 39).")
    var address: String = "0x27"

    @Option(help: "Only events of this adapter (i2c-N); default: any.")
    var adapter: Int?

    @Option(help: "Display rows.")
    var rows = 2

    @Option(help: "Display columns.")
    var columns = 16

    @Option(help: "Backpack wiring: common (P0 RS, P1 RW, P2 E, P3 backlight, P4-P7 D4-D7) or alternate.")
    var wiring = "common"

    @Option(help: "The instant to give the state for (realtime seconds); default: after the last byte.")
    var at: InstantArgument?

    @Option(name: .customLong("clock-offset"), parsing: .unconditional, help: "realtime − trace clock, in seconds.")
    var clockOffset: String?

    @Option(name: .customLong("trace-clock"), help: "The trace clock the file was recorded with (mono, boot, tai, mono_raw).")
    var traceClock: String?

    @Option(help: "The tracefs mount, for reading trace_clock.")
    var tracefs = TraceClock.defaultTraceFS

    @Option(name: .customLong("settle-ms"), help: "Quiet time after which a changed screen counts (0: every change).")
    var settleMilliseconds = 10.0

    @Flag(help: "Show custom glyphs and non-ASCII characters as ?.")
    var ascii = false

    func validate() throws {
        guard parsedAddress != nil else { throw ValidationError("--address must be 0x03-0x77 (hex with 0x, or decimal)") }
        guard BackpackPins.named(wiring) != nil else { throw ValidationError("--wiring must be common or alternate") }
        guard (1...4).contains(rows), (1...40).contains(columns) else { throw ValidationError("--rows 1-4 and --columns 1-40") }
        guard settleMilliseconds >= 0 else { throw ValidationError("--settle-ms must not be negative") }
        if let clockOffset, DecimalText.nanoseconds(fromSeconds: clockOffset) == nil {
            throw ValidationError("--clock-offset must be decimal seconds, found \(clockOffset)")
        }
    }

    var parsedAddress: Int? {
        let value = address.lowercased().hasPrefix("0x") ? Int(address.dropFirst(2), radix: 16) : Int(address)
        return value.flatMap { (0x03...0x77).contains($0) ? $0 : nil }
    }

    func run() throws {
        let offset: Int64
        let clock: String
        if let clockOffset, let given = DecimalText.nanoseconds(fromSeconds: clockOffset) {
            offset = given
            clock = traceClock ?? "given"
        } else {
            clock = try traceClock ?? TraceClock.current(traceFS: tracefs)
            offset = try TraceClock.offsetNow(clock: clock)
        }
        let trace = SMBusTrace.parse(try FileIO.readText(traceFile))
        let timeline = LCDTimeline(
            address: parsedAddress!, adapter: adapter, rows: rows, columns: columns, pins: BackpackPins.named(wiring)!,
            clockOffsetNanoseconds: offset, traceClock: clock,
            settleNanoseconds: Int64(settleMilliseconds * 1_000_000), ascii: ascii)
        output(timeline.report(trace, at: at?.instant).json)
    }
}

struct ClockOffset: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock-offset",
        abstract: "Print realtime − a trace clock now, for lcd --clock-offset.",
        discussion: """
            With no --clock, the clock selected in TRACEFS/trace_clock. Measuring this when tracing \
            starts keeps the conversion right even if a test sets the realtime clock later.
            """)

    @Option(help: "mono, mono_raw, boot or tai.")
    var clock: String?

    @Option(help: "The tracefs mount, for reading trace_clock.")
    var tracefs = TraceClock.defaultTraceFS

    func run() throws {
        let name = try clock ?? TraceClock.current(traceFS: tracefs)
        var object = JSONObject()
        object.set("clock", .string(name))
        object.set("offset", .seconds(nanoseconds: try TraceClock.offsetNow(clock: name)))
        object.set("realtime", .instant(.now()))
        output(object)
    }
}
