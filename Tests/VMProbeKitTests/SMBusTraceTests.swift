import Glibc
import Testing
@testable import VMProbeKit

@Suite struct SMBusTraceTests {
    @Test func sendByteLineInTheKernelFormat() throws {
        let line = "          alarmd-412     [001] .....   152.318204: smbus_write: i2c-0 a=027 f=0000 c=8c BYTE l=0 []"
        let write = try #require(SMBusTrace.parseWrite(line[...], number: 3))
        #expect(write == SMBusWrite(traceNanoseconds: 152_318_204_000, adapter: 0, address: 0x27, command: 0x8C, protocolName: "BYTE", line: 3))
    }

    @Test func toleratesOtherColumnsAndTaskNames() throws {
        let lines = [
            "   Display thread-55      [000] d..1.     3.000001: smbus_write: i2c-0 a=027 f=0000 c=0 BYTE l=0 []",
            "<...>-9 [1] 17.5: smbus_write: i2c-10 a=03f f=0000 c=ff BYTE l=0 []",
            "alarmd-412 ( 412) [001] .... 1764000000.123456: smbus_write: i2c-0 a=027 f=0000 c=4 BYTE l=0 []",
        ]
        let writes = lines.compactMap { SMBusTrace.parseWrite($0[...]) }
        #expect(writes.map(\.command) == [0x00, 0xFF, 0x04])
        #expect(writes.map(\.address) == [0x27, 0x3F, 0x27])
        #expect(writes.map(\.adapter) == [0, 10, 0])
        #expect(writes.map(\.traceNanoseconds) == [3_000_001_000, 17_500_000_000, 1_764_000_000_123_456_000])
    }

    @Test func otherEventsAndHeadersAreSkipped() {
        let text = TraceText.header + """

                      alarmd-412     [001] .....   10.000001: smbus_read: i2c-0 a=027 f=0000 c=0 BYTE
                      alarmd-412     [001] .....   10.000002: smbus_reply: i2c-0 a=027 f=0000 c=0 BYTE l=1 [00]
                      alarmd-412     [001] .....   10.000003: smbus_result: i2c-0 a=027 f=0000 c=0 BYTE rd res=0
                      alarmd-412     [001] .....   10.000004: i2c_write: i2c-0 #0 a=027 f=0000 l=1 [0c]
                      alarmd-412     [001] .....   10.000005: smbus_write: i2c-0 a=027 f=0000 c=c BYTE l=0 []
                      alarmd-412     [001] .....   10.000006: smbus_result: i2c-0 a=027 f=0000 c=c BYTE wr res=0
                      i2cset-77      [000] .....   10.000007: smbus_write: i2c-0 a=050 f=0000 c=10 BYTE_DATA l=1 [2a]
            CPU:1 [LOST 3 EVENTS]
                      alarmd-412     [001] .....   10.000008: smbus_write: i2c-0 a=027 f=0000 c=8 BYTE l=0 []

            """
        let trace = SMBusTrace.parse(text)
        #expect(trace.writes.map(\.command) == [0x0C, 0x10, 0x08])
        #expect(trace.writes.map(\.protocolName) == ["BYTE", "BYTE_DATA", "BYTE"])
        #expect(trace.lostEvents == 3)
    }

    @Test func aWrappedRingBufferCountsAsLost() {
        let trace = SMBusTrace.parse("# entries-in-buffer/entries-written: 140/152   #P:2\n")
        #expect(trace.lostEvents == 12)
    }

    @Test func traceClockSelection() throws {
        #expect(TraceClock.selected(in: "[local] global counter uptime perf mono mono_raw boot x86-tsc\n") == "local")
        #expect(TraceClock.selected(in: "local global counter uptime perf [mono] mono_raw boot tai x86-tsc\n") == "mono")
        #expect(TraceClock.clockID(named: "boot") != nil)
        #expect(throws: ProbeError.self) { try TraceClock.offsetNow(clock: "local") }
        let offset = try TraceClock.offsetNow(clock: "mono")
        let expected = SystemClock.read(CLOCK_REALTIME) - SystemClock.read(CLOCK_MONOTONIC)
        #expect(abs(offset - expected) < 1_000_000_000)
    }
}
