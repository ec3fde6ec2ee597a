import AlarmTestKit
import Glibc
import Testing
@testable import VMProbeKit

/// `alarm-vm-probe` as the harness runs it: one JSON line on stdout, one error line on stderr,
/// exit status 0, 1 or 64.
@Suite struct ProbeCommandTests {
    let probe = ChildProcess.product("alarm-vm-probe")

    func run(_ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(probe, arguments)
    }

    /// The keys of a one-line JSON object, in order (enough for these flat outputs).
    func keys(_ line: String) -> [String] {
        var keys: [String] = []
        var depth = 0
        var inString = false
        var current = ""
        var escaped = false
        var previous: Character = " "
        for character in line {
            if inString {
                if escaped { escaped = false; current.append(character); continue }
                if character == "\\" { escaped = true; continue }
                if character == "\"" { inString = false } else { current.append(character) }
                continue
            }
            switch character {
            case "\"":
                inString = true
                current = ""
            case "{", "[": depth += 1
            case "}", "]": depth -= 1
            case ":" where depth == 1 && previous == "\"": keys.append(current)
            default: break
            }
            previous = character
        }
        return keys
    }

    @Test func soundPrintsOneJSONLine() throws {
        var signal = SyntheticCapture()
        signal.silence(0.5)
        signal.alarmTone(seconds: 1.0)
        signal.silence(2.0)
        let directory = try TemporaryDirectory()
        try signal.write(to: directory.path)
        let sound = try run(["sound", directory.path, "--after", "1764000000.25", "--threshold-db", "-60"])
        #expect(sound.exitStatus == 0)
        #expect(sound.standardError == "")
        #expect(sound.standardOutput.hasSuffix("}\n") && sound.standardOutput.filter { $0 == "\n" }.count == 1)
        #expect(keys(sound.standardOutput) == [
            "after", "before", "threshold_db", "first_sound", "latency_ms", "frequency_hz", "peak_dbfs", "rms_dbfs",
            "sounding_ms", "analysed_ms", "capture_end", "xruns",
        ])
        #expect(sound.standardOutput.contains("\"first_sound\":1764000000.5000"))
        #expect(sound.standardOutput.contains("\"latency_ms\":250.0"))
        let silence = try run(["silence", directory.path, "--after", "1764000001.3", "--min", "1.5"])
        #expect(silence.exitStatus == 0)
        #expect(keys(silence.standardOutput) == [
            "after", "before", "threshold_db", "min_s", "silent_from", "delay_ms", "silent", "silent_ms", "until",
            "capture_end", "xruns",
        ])
        #expect(silence.standardOutput.contains("\"silent_from\":1764000001.300000,\"delay_ms\":0.000,\"silent\":true"))
    }

    @Test func errorsAreOneLineWithStatusOneOrSixtyFour() throws {
        let missing = try run(["sound", "/nonexistent-probe-dir", "--after", "1"])
        #expect(missing.exitStatus == 1)
        #expect(missing.standardOutput == "")
        #expect(missing.standardError == "alarm-vm-probe: cannot read /nonexistent-probe-dir/capture.times: No such file or directory\n")
        let usage = try run(["sound", "/tmp", "--after", "noon"])
        #expect(usage.exitStatus == 64)
        #expect(usage.standardError.hasPrefix("alarm-vm-probe: ") && usage.standardError.filter { $0 == "\n" }.count == 1)
        let backwards = try run(["led", "/tmp/x", "--after", "5", "--before", "4"])
        #expect(backwards.exitStatus == 64)
        let unknown = try run(["record-video"])
        #expect(unknown.exitStatus == 64)
    }

    @Test func pressWritesPullDownThenPullUp() throws {
        let directory = try TemporaryDirectory()
        let pull = directory.path + "/pull"
        try TestFiles.write(Array("pull-up".utf8), to: pull)
        let result = try run(["press", "--pull", pull, "--hold", "0"])
        #expect(result.exitStatus == 0)
        #expect(keys(result.standardOutput) == ["pressed_at", "released_at", "held_ms"])
        // Written in place, not truncated (sysfs takes each write whole): in a regular file the
        // release shows over the press.
        #expect(TestFiles.read(pull).map { String(decoding: $0, as: UTF8.self) } == "pull-upwn")
        let missing = try run(["press", "--pull", directory.path + "/none/pull"])
        #expect(missing.exitStatus == 1)
        #expect(missing.standardError.contains("cannot write \(directory.path)/none/pull: No such file or directory"))
    }

    @Test func waitFileSucceedsOrTimesOut() throws {
        let directory = try TemporaryDirectory()
        let present = try run(["wait-file", directory.path, "--timeout", "0"])
        #expect(present.exitStatus == 0)
        #expect(keys(present.standardOutput) == ["path", "waited_ms"])
        let absent = try run(["wait-file", directory.path + "/ready", "--timeout", "0"])
        #expect(absent.exitStatus == 1)
        #expect(absent.standardError == "alarm-vm-probe: \(directory.path)/ready did not appear within 0.000 s\n")
    }

    @Test func lcdDecodesATraceFile() throws {
        var encoder = BackpackEncoder()
        encoder.initialise()
        encoder.write("Hello", row: 0)
        encoder.write("World", row: 1)
        let directory = try TemporaryDirectory()
        let path = directory.path + "/trace"
        let text = TraceText.header + "\n" + encoder.traceLines(startNanoseconds: 50_000_000_000).joined(separator: "\n") + "\n"
        try TestFiles.write(Array(text.utf8), to: path)
        let result = try run(["lcd", path, "--address", "0x27", "--rows", "2", "--columns", "16", "--clock-offset", "1764000000"])
        #expect(result.exitStatus == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix(#"{"at":1764000050.0"#))
        #expect(result.standardOutput.contains(#""text":["Hello           ","World           "],"backlight":true"#))
        #expect(result.standardOutput.contains(#""trace_clock":"given""#))
        let unconvertible = try run(["lcd", path, "--trace-clock", "local"])
        #expect(unconvertible.exitStatus == 1)
        #expect(unconvertible.standardError.contains("trace clock `local` cannot be converted"))
    }

    @Test func ledAnalysesARecording() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/led"
        try TestFiles.write(Array("1764000000.000000 0\n1764000001.000000 1\n# end 1764000002.000000\n".utf8), to: path)
        let result = try run(["led", path, "--after", "1764000000.5"])
        #expect(result.standardOutput == """
            {"after":1764000000.500000,"until":1764000002.000000,"level_at_start":0,"first_high":1764000001.000000,\
            "high_fraction":0.6667,"transitions":1,"rising_edges":1,"period_ms":null,"high_ms":null,"level_at_end":1,\
            "last_transition":1764000001.000000,"pattern":"on"}

            """)
    }

    /// Spins (no sleeping) until `condition` holds or `limit` seconds of CLOCK_MONOTONIC pass.
    func spin(until condition: () -> Bool, limit: Int64 = 30) -> Bool {
        let deadline = SystemClock.read(CLOCK_MONOTONIC) + limit * 1_000_000_000
        while !condition() {
            if SystemClock.read(CLOCK_MONOTONIC) > deadline { return false }
            sched_yield()
        }
        return true
    }

    @Test func recordLEDWritesChangesAndStopsOnSIGTERM() throws {
        let directory = try TemporaryDirectory()
        let value = directory.path + "/value"
        let out = directory.path + "/led"
        try TestFiles.write(Array("0\n".utf8), to: value)
        let child = try RunningChild(probe, ["record-led", "--value", value, "--out", out, "--interval", "0.001"], standardErrorPath: directory.path + "/stderr")
        func lines() -> [String] {
            (TestFiles.read(out).map { String(decoding: $0, as: UTF8.self) } ?? "").split(separator: "\n").map(String.init)
        }
        #expect(spin { lines().count == 1 })
        try TestFiles.write(Array("1\n".utf8), to: value)
        #expect(spin { lines().count == 2 })
        child.kill(SIGTERM)
        let summary = try #require(try child.readLine())
        #expect(child.wait().exitStatus == 0)
        #expect(keys(summary) == ["samples", "changes", "read_errors", "started", "stopped"])
        #expect(summary.contains("\"changes\":1"))
        let recorded = lines()
        #expect(recorded.count == 3)
        #expect(recorded[0].hasSuffix(" 0") && recorded[1].hasSuffix(" 1") && recorded[2].hasPrefix("# end "))
        let report = try LEDRecording.parse(recorded.joined(separator: "\n") + "\n", path: out)
        #expect(report.changes.map(\.high) == [false, true])
    }

    /// ALSA's `null` device captures silence without pacing: enough to see the recorder's files,
    /// its ready marker and its stop on SIGTERM, though not real timing.
    @Test func recordAudioWritesReadyAndStopsOnSIGTERM() throws {
        let directory = try TemporaryDirectory()
        let out = directory.path + "/capture"
        let child = try RunningChild(probe, ["record-audio", "--device", "null", "--out", out], standardErrorPath: directory.path + "/stderr")
        #expect(spin { FileIO.exists(out + "/ready") })
        child.kill(SIGTERM)
        let summary = try #require(try child.readLine())
        #expect(child.wait().exitStatus == 0)
        #expect(keys(summary) == ["device", "frames", "seconds", "periods", "xruns", "period_frames", "buffer_frames", "started", "stopped"])
        let capture = try Capture.load(directory: out)
        #expect(summary.contains("\"frames\":\(capture.samples.count),"))
        #expect(capture.samples.allSatisfy { $0 == 0 })
    }

    @Test func recordAudioFromAMissingDeviceFails() throws {
        let directory = try TemporaryDirectory()
        let result = try run(["record-audio", "--device", "hw:NoSuchCard,1,0", "--out", directory.path + "/capture"])
        #expect(result.exitStatus == 1)
        #expect(result.standardError.hasPrefix("alarm-vm-probe: cannot open capture device hw:NoSuchCard,1,0: "))
        #expect(result.standardError.filter { $0 == "\n" }.count == 1)
    }
}
