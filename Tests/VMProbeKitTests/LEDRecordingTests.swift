import Testing
@testable import VMProbeKit

@Suite struct LEDRecordingTests {
    let start = RealtimeInstant(parsing: "1764000000")!

    func at(_ milliseconds: Int64) -> RealtimeInstant {
        RealtimeInstant(nanoseconds: start.nanoseconds + milliseconds * 1_000_000)
    }

    func line(_ milliseconds: Int64, _ level: Int) -> String {
        "\(at(milliseconds).text) \(level)\n"
    }

    /// Off until 1 s, then 250 ms on / 250 ms off until 5 s; recording ended at 6 s.
    var blinking: String {
        var text = line(0, 0)
        for cycle in 0..<8 {
            text += line(1000 + Int64(cycle) * 500, 1)
            text += line(1250 + Int64(cycle) * 500, 0)
        }
        return text + "# end \(at(6000).text)\n"
    }

    @Test func blinkingHasPeriodAndDuty() throws {
        let recording = try LEDRecording.parse(blinking, path: "led")
        let report = recording.analyse(after: at(500), now: at(60_000))
        #expect(report.levelAtStart == false)
        #expect(report.firstHigh == at(1000))
        #expect(report.pattern == .blink)
        #expect(report.transitions == 16)
        #expect(report.risingEdges == 8)
        #expect(report.periodMilliseconds == 500)
        #expect(report.highMilliseconds == 250)
        #expect(report.until == at(6000))
        #expect(abs(report.highFraction - 2.0 / 5.5) < 1e-9)
        #expect(report.levelAtEnd == false)
        #expect(report.lastTransition == at(4750))
    }

    @Test func aRangeInsideOnePulse() throws {
        let report = try LEDRecording.parse(blinking, path: "led").analyse(after: at(1100), before: at(1200), now: at(60_000))
        #expect(report.levelAtStart)
        #expect(report.firstHigh == at(1100))
        #expect(report.pattern == .on)
        #expect(report.highFraction == 1)
        #expect(report.periodMilliseconds == nil)
        #expect(report.json.text == """
            {"after":1764000001.100000,"until":1764000001.200000,"level_at_start":1,"first_high":1764000001.100000,\
            "high_fraction":1.0000,"transitions":0,"rising_edges":0,"period_ms":null,"high_ms":null,"level_at_end":1,\
            "last_transition":null,"pattern":"on"}
            """)
    }

    @Test func constantlyOff() throws {
        let recording = try LEDRecording.parse(line(0, 0), path: "led")
        let report = recording.analyse(after: at(100), now: at(10_000))
        #expect(report.pattern == .off)
        #expect(report.firstHigh == nil)
        #expect(report.highFraction == 0)
        #expect(report.until == at(10_000))  // still recording: up to now
    }

    @Test func turningOnOnceIsOnFromThen() throws {
        let recording = try LEDRecording.parse(line(0, 0) + line(2000, 1), path: "led")
        let report = recording.analyse(after: at(1000), before: at(4000), now: at(10_000))
        #expect(report.pattern == .on)
        #expect(report.firstHigh == at(2000))
        #expect(report.transitions == 1)
        #expect(abs(report.highFraction - 2.0 / 3.0) < 1e-9)
        #expect(report.lastTransition == at(2000))
    }

    @Test func aRangeBeforeTheRecordingStartsWithIt() throws {
        let recording = try LEDRecording.parse(line(1000, 1) + "# end \(at(2000).text)\n", path: "led")
        let report = recording.analyse(after: at(0), before: at(5000), now: at(10_000))
        #expect(report.levelAtStart)
        #expect(report.firstHigh == at(1000))
        #expect(report.until == at(2000))
        #expect(report.highFraction == 1)
    }

    @Test func badLinesAreNamedAndAnUnfinishedOneIgnored() throws {
        #expect(throws: ProbeError("led:2: expected `SECONDS 0|1`, found `1764000000.5 on`")) {
            try LEDRecording.parse(line(0, 0) + "1764000000.5 on\n", path: "led")
        }
        #expect(throws: ProbeError("led is empty: no initial level recorded yet")) {
            try LEDRecording.parse("", path: "led")
        }
        let recording = try LEDRecording.parse(line(0, 1) + "1764000000.5", path: "led")
        #expect(recording.changes == [.init(instant: at(0), high: true)])
    }

    @Test func changeLogWritesTheFirstSampleAndChangesOnly() {
        var log = LEDChangeLog()
        let lines = [(0, false), (5, false), (10, true), (15, true), (20, false)].compactMap {
            log.line(forSample: $0.1, at: at(Int64($0.0)))
        }
        #expect(lines == ["1764000000.000000 0", "1764000000.010000 1", "1764000000.020000 0"])
        #expect(LEDChangeLog.endLine(at: at(30)) == "# end 1764000000.030000")
    }

    @Test func valueAttributeIsZeroOrOne() throws {
        #expect(try LEDChangeLog.level(fromAttribute: "1\n", path: "value"))
        #expect(try !LEDChangeLog.level(fromAttribute: "0\n", path: "value"))
        #expect(throws: ProbeError("value: expected 0 or 1, read `high`")) {
            try LEDChangeLog.level(fromAttribute: "high\n", path: "value")
        }
    }
}
