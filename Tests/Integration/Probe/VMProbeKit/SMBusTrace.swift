/// The `smbus_write` events of a kernel trace (tracefs `trace` or `trace_pipe` text).
///
/// The kernel prints each as (include/trace/events/smbus.h)
/// ```
///           alarmd-412     [001] .....   152.318204: smbus_write: i2c-0 a=027 f=0000 c=8c BYTE l=0 []
/// ```
/// that is `i2c-%d a=%03x f=%04x c=%x %s l=%u [%*phD]`, after the usual task, CPU, flags and
/// timestamp columns. For an SMBus "send byte" the protocol is `BYTE` and the byte itself is the
/// command, `c=`, printed in hex without leading zeros. The parser looks for `smbus_write:`, takes
/// the token just before it as the timestamp (seconds with decimals; the trace clock decides what
/// they count) and the `key=value` tokens after it, so task names with spaces, other flag
/// columns and other events (`smbus_read`, `smbus_result`, `i2c_write`, ...) do not disturb it.
public struct SMBusWrite: Sendable, Equatable {
    /// The timestamp in the trace clock, in nanoseconds.
    public var traceNanoseconds: Int64
    /// The adapter number (`i2c-0` → 0).
    public var adapter: Int
    public var address: Int
    public var command: UInt8
    /// `BYTE` for send byte, `BYTE_DATA`, `WORD_DATA`...
    public var protocolName: String
    /// 1-based, for messages.
    public var line: Int

    public init(traceNanoseconds: Int64, adapter: Int, address: Int, command: UInt8, protocolName: String, line: Int) {
        self.traceNanoseconds = traceNanoseconds
        self.adapter = adapter
        self.address = address
        self.command = command
        self.protocolName = protocolName
        self.line = line
    }
}

/// A parsed trace file: its `smbus_write` events and what it says about lost events.
public struct SMBusTrace: Sendable, Equatable {
    public var writes: [SMBusWrite]
    /// Events the kernel reports lost: the sum of `CPU:N [LOST M EVENTS]` lines (trace_pipe), plus
    /// the shortfall in the header `# entries-in-buffer/entries-written: IN/WRITTEN` (a ring buffer
    /// that wrapped). Lost bytes make the decoded screen wrong until the next initialisation.
    public var lostEvents: Int

    /// Parses trace text; lines that are not `smbus_write` events are skipped.
    public static func parse(_ text: String) -> SMBusTrace {
        var trace = SMBusTrace(writes: [], lostEvents: 0)
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("#") {
                trace.lostEvents += overwritten(inHeader: line)
            } else if let lost = lostCount(line) {
                trace.lostEvents += lost
            } else if let write = parseWrite(line, number: index + 1) {
                trace.writes.append(write)
            }
        }
        return trace
    }

    /// One `smbus_write` line, or nil.
    public static func parseWrite(_ line: Substring, number: Int = 0) -> SMBusWrite? {
        guard let marker = line.firstRange(of: "smbus_write:") else { return nil }
        guard var stamp = line[..<marker.lowerBound].split(separator: " ").last else { return nil }
        if stamp.hasSuffix(":") { stamp = stamp.dropLast() }
        guard let nanoseconds = DecimalText.nanoseconds(fromSeconds: stamp) else { return nil }
        let fields = line[marker.upperBound...].split(separator: " ")
        var adapter: Int?
        var address: Int?
        var command: UInt8?
        var protocolName: String?
        for (position, field) in fields.enumerated() {
            if field.hasPrefix("i2c-") {
                adapter = Int(field.dropFirst(4))
            } else if field.hasPrefix("a=") {
                address = Int(field.dropFirst(2), radix: 16)
            } else if field.hasPrefix("c=") {
                command = UInt8(field.dropFirst(2), radix: 16)
                if position + 1 < fields.count { protocolName = String(fields[position + 1]) }
            }
        }
        guard let adapter, let address, let command, let protocolName else { return nil }
        return SMBusWrite(
            traceNanoseconds: nanoseconds, adapter: adapter, address: address, command: command,
            protocolName: protocolName, line: number)
    }

    /// `CPU:1 [LOST 42 EVENTS]` → 42.
    static func lostCount(_ line: Substring) -> Int? {
        guard let start = line.firstRange(of: "[LOST "), let end = line.firstRange(of: " EVENTS]") else { return nil }
        guard start.upperBound <= end.lowerBound else { return nil }
        return Int(line[start.upperBound..<end.lowerBound])
    }

    /// `# entries-in-buffer/entries-written: 140/152   #P:2` → 12.
    static func overwritten(inHeader line: Substring) -> Int {
        guard let marker = line.firstRange(of: "entries-in-buffer/entries-written:") else { return 0 }
        guard let counts = line[marker.upperBound...].split(separator: " ").first else { return 0 }
        let parts = counts.split(separator: "/")
        guard parts.count == 2, let inBuffer = Int(parts[0]), let written = Int(parts[1]) else { return 0 }
        return max(0, written - inBuffer)
    }
}
