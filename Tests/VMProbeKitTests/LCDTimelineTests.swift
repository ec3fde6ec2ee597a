import Testing
@testable import VMProbeKit

@Suite struct LCDTimelineTests {
    /// realtime − trace clock in these traces: the trace clock reads 100 s at 1764000000.
    let offset: Int64 = 1_763_999_900_000_000_000

    func realtime(_ traceSeconds: Double) -> RealtimeInstant {
        RealtimeInstant(nanoseconds: Int64((traceSeconds * 1e6).rounded()) * 1000 + offset)
    }

    /// Init and a first screen at trace time 100 s, a second screen at 101 s, a glyph and a
    /// backlight change at 102 s; noise from other devices in between.
    func trace() -> (text: String, firstScreenEnd: Double, secondScreenEnd: Double) {
        var encoder = BackpackEncoder()
        encoder.initialise()
        encoder.write("06:59", row: 0)
        var lines = encoder.traceLines(startNanoseconds: 100_000_000_000)
        let firstEnd = 100.0 + Double(lines.count - 1) * 0.0001
        let mark = encoder.bytes.count
        encoder.write("ALARM 07:00", row: 0)
        encoder.write("Stop?", row: 1)
        let second = encoder.traceLines(from: mark, startNanoseconds: 101_000_000_000)
        let secondEnd = 101.0 + Double(second.count - 1) * 0.0001
        lines += [TraceText.smbusWrite(nanoseconds: 100_500_000_000, adapter: 0, address: 0x3F, command: 0x0C)]
        lines += second
        let mark2 = encoder.bytes.count
        encoder.defineGlyph(1, rows: [1, 2, 3, 4, 5, 6, 7, 8])
        encoder.setBacklight(false)
        lines += encoder.traceLines(from: mark2, startNanoseconds: 102_000_000_000)
        lines.append("CPU:0 something unrelated")
        return (TraceText.header + "\n" + lines.joined(separator: "\n") + "\n", firstEnd, secondEnd)
    }

    @Test func screensAreCountedOnceWhenComplete() throws {
        let (text, firstEnd, secondEnd) = trace()
        let report = LCDTimeline(clockOffsetNanoseconds: offset).report(SMBusTrace.parse(text))
        #expect(report.text == ["ALARM 07:00     ", "Stop?           "])
        #expect(report.screens == [
            LCDScreen(at: realtime(firstEnd), text: ["06:59           ", "                "]),
            LCDScreen(at: realtime(secondEnd), text: ["ALARM 07:00     ", "Stop?           "]),
        ])
        #expect(report.changes == 21)
        #expect(report.backlight == false)
        #expect(report.displayOn)
        #expect(report.initialised)
        #expect(report.lostEvents == 0)
    }

    @Test func stateAtAnInstant() throws {
        let (text, firstEnd, _) = trace()
        let at = realtime(100.9)
        let report = LCDTimeline(clockOffsetNanoseconds: offset).report(SMBusTrace.parse(text), at: at)
        #expect(report.at == at)
        #expect(report.text == ["06:59           ", "                "])
        #expect(report.screens == [LCDScreen(at: realtime(firstEnd), text: ["06:59           ", "                "])])
        #expect(report.changes == 5)
        #expect(report.backlight == true)
    }

    @Test func aStateCutByTheInstantIsShownAsItWas() throws {
        let (text, _, _) = trace()
        // 101.0 + 36 bytes: the cursor move (6 bytes) and 5 characters (6 bytes each... the first 4) in.
        let report = LCDTimeline(clockOffsetNanoseconds: offset).report(SMBusTrace.parse(text), at: realtime(101.0030))
        #expect(report.text[0].hasPrefix("ALA"))
        #expect(report.screens.last?.text[0].hasPrefix("ALA") == true)
    }

    @Test func everyChangeWithoutSettling() throws {
        let (text, _, _) = trace()
        let report = LCDTimeline(clockOffsetNanoseconds: offset, settleNanoseconds: 0).report(SMBusTrace.parse(text))
        // Clear (blank), 5 characters, then 11 + 5 more (cells that change).
        #expect(report.screens.count > 15)
        #expect(report.screens.last?.text == ["ALARM 07:00     ", "Stop?           "])
    }

    @Test func otherAddressesAndAdaptersAreIgnored() throws {
        let (text, _, _) = trace()
        let other = LCDTimeline(address: 0x3F, clockOffsetNanoseconds: offset).report(SMBusTrace.parse(text))
        #expect(other.bytes == 1)
        #expect(other.changes == 0)
        let wrongBus = LCDTimeline(adapter: 1, clockOffsetNanoseconds: offset).report(SMBusTrace.parse(text))
        #expect(wrongBus.bytes == 0)
        #expect(wrongBus.text == ["                ", "                "])
    }

    @Test func onlyTheLastTwoHundredScreensAreKept() throws {
        var encoder = BackpackEncoder()
        encoder.initialise()
        var lines = encoder.traceLines(startNanoseconds: 1_000_000_000)
        for second in 0..<250 {
            let mark = encoder.bytes.count
            encoder.write(String(second), row: 0)
            lines += encoder.traceLines(from: mark, startNanoseconds: Int64(second + 2) * 1_000_000_000)
        }
        let report = LCDTimeline(clockOffsetNanoseconds: 0).report(SMBusTrace.parse(lines.joined(separator: "\n") + "\n"))
        #expect(report.screens.count == 200)
        #expect(report.screensDropped == 51)  // the blank screen after init and the first 50
        #expect(report.screens.last?.text[0] == "249             ")
    }

    @Test func reportJSONKeys() throws {
        let (text, _, _) = trace()
        let json = LCDTimeline(clockOffsetNanoseconds: offset, traceClock: "mono").report(SMBusTrace.parse(text)).json
        #expect(json.members.map(\.key) == [
            "at", "text", "backlight", "display_on", "changes", "screens", "screens_dropped", "bytes", "initialised",
            "lost_events", "clock_offset", "trace_clock",
        ])
        #expect(json.text.contains("\"clock_offset\":1763999900.000000,\"trace_clock\":\"mono\""))
        #expect(json.text.contains("\"text\":[\"ALARM 07:00     \",\"Stop?           \"]"))
    }
}
