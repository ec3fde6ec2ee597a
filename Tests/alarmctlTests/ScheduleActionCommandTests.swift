import AlarmProtocol
import AlarmTestKit
import FoundationEssentials
import Testing

/// `alarmctl disable`, `enable` and `skip` against a real alarmd on the simulated board (its real
/// clock: the tests hold whatever the day is).
@Suite(.timeLimit(.minutes(5)))
struct ScheduleActionCommandTests {
    @Test func disableEnableAndSkipChangeWhatListShowAndHistorySay() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        try #require(try await daemon.reportsRecords(), "this alarmd does not report records")
        let id = AlarmCommandTests.id(1)
        let scheduled = try await daemon.alarmctl(["schedule", "--at", "7:30", "--repeat", "daily", "--title", "Work", "--id", id])
        #expect(scheduled.exitStatus == 0, "stderr: \(scheduled.standardError)")
        func alarm() async throws -> JSONValue? {
            try Output.json(try await daemon.alarmctl(["show", "AAAA0001", "--json"]).standardOutput)["alarm"]
        }
        func row() async throws -> [String] {
            Output.lines(try await daemon.alarmctl(["list"]).standardOutput).dropFirst().first?.split(separator: " ").map(String.init) ?? []
        }
        let next = try #require(try await alarm()?["nextAlert"]?.stringValue)
        #expect(try await alarm()?["enabled"] == .bool(true))
        #expect(try await alarm()?["skippedDate"] == .null)

        // Skip: the day that was next, and the day after rings.
        let skipped = try await daemon.alarmctl(["skip", "aaaa0001"])
        #expect(skipped.exitStatus == 0, "stderr: \(skipped.standardError)")
        let day = String(next.prefix(10))
        #expect(skipped.standardOutput.hasPrefix("Skipped \(id) \"Work\"; when: "))
        #expect(skipped.standardOutput.contains("(skips ") && skipped.standardOutput.contains(" \(day))\n"))
        #expect(try await alarm()?["skippedDate"] == .string(day))
        #expect(try await alarm()?["nextAlert"]?.stringValue.map { $0 > next } == true)
        #expect(try await row().contains("(skips"))
        let shown = Output.lines(try await daemon.alarmctl(["show", "AAAA0001"]).standardOutput)
        #expect(shown.contains { $0.hasPrefix("Skips:       ") && $0.hasSuffix(" \(day)") })
        #expect(try await daemon.alarmctl(["skip", "AAAA0001"]).exitStatus == 0)
        #expect(try await alarm()?["skippedDate"] == .string(day), "skipping twice skips one day")

        // Enable undoes the skip.
        let enabled = try await daemon.alarmctl(["enable", "AAAA0001"])
        #expect(enabled.exitStatus == 0, "stderr: \(enabled.standardError)")
        #expect(enabled.standardOutput.hasPrefix("Enabled \(id) \"Work\"; when: "))
        #expect(try await alarm()?["skippedDate"] == .null)
        #expect(try await alarm()?["nextAlert"] == .string(next))

        // Disable: listed, disabled, no next time; skip is refused until enabled.
        let disabled = try await daemon.alarmctl(["disable", "AAAA0001"])
        #expect(disabled.standardOutput == "Disabled \(id) \"Work\"\n", "stderr: \(disabled.standardError)")
        #expect(try await alarm()?["enabled"] == .bool(false))
        #expect(try await alarm()?["state"] == .string("scheduled"))
        #expect(try await alarm()?["nextAlert"] == .null)
        #expect(Array(try await row().prefix(3)) == ["AAAA0001", "disabled", "-"])
        #expect(Output.lines(try await daemon.alarmctl(["show", "AAAA0001"]).standardOutput).contains("State:       disabled"))
        #expect(try await daemon.alarmctl(["disable", "AAAA0001"]).exitStatus == 0)
        let refused = try await daemon.alarmctl(["skip", "AAAA0001"])
        #expect(refused.exitStatus == 1)
        #expect(refused.standardError == "alarmctl: cannot skip alarm \(id): it is disabled (enable it first)\n")

        #expect(try await daemon.alarmctl(["enable", "AAAA0001"]).exitStatus == 0)
        #expect(try await alarm()?["nextAlert"] == .string(next))
        let history = try Output.json(try await daemon.alarmctl(["history", "--json"]).standardOutput)
        #expect(Output.array(history["entries"]).compactMap { $0["kind"]?.stringValue } == ["skipped", "enabled", "disabled", "enabled"])
    }

    @Test func wakeSetsTheFadeAndVolumeShowPrintsThemAndDefaultGivesThemBack() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        let id = AlarmCommandTests.id(1)
        let scheduled = try await daemon.alarmctl(["schedule", "--at", "6:45", "--title", "Slow", "--id", id, "--fade", "30m", "--volume", "60%"])
        #expect(scheduled.exitStatus == 0, "stderr: \(scheduled.standardError)")
        func wake() async throws -> JSONValue? {
            try Output.json(try await daemon.alarmctl(["show", "AAAA0001", "--json"]).standardOutput)["alarm"]?["wake"]
        }
        #expect(try await wake() == .object(["fadeSeconds": .integer(1_800), "volumePercent": .integer(60), "lightLeadSeconds": .null]))
        let shown = Output.lines(try await daemon.alarmctl(["show", "AAAA0001"]).standardOutput)
        #expect(shown.contains("Wake:        fades in over 30m, to 60%, the household's sunrise"))
        let lit = try await daemon.alarmctl(["wake", "AAAA0001", "--light", "45m"])
        #expect(lit.standardOutput.hasSuffix(": fades in over 30m, to 60%, the light from 45m before\n"), "\(lit.standardError)")
        _ = try await daemon.alarmctl(["wake", "AAAA0001", "--light", "default"])

        let changed = try await daemon.alarmctl(["wake", "aaaa0001", "--fade", "0"])
        #expect(changed.standardOutput == "Wakes \(id) \"Slow\": full at once, to 60%, the household's sunrise\n", "stderr: \(changed.standardError)")
        let back = try await daemon.alarmctl(["wake", "AAAA0001", "--volume", "default"])
        #expect(back.standardOutput == "Wakes \(id) \"Slow\": full at once, to the household's volume, the household's sunrise\n")
        #expect(try await wake() == .object(["fadeSeconds": .integer(0), "volumePercent": .null, "lightLeadSeconds": .null]))
        _ = try await daemon.alarmctl(["wake", "AAAA0001", "--fade", "default"])
        #expect(try await daemon.alarmctl(["wake", "AAAA0001"]).standardOutput
            == "\(id): the household's fade-in, to the household's volume, the household's sunrise\n")
    }

    @Test func aOneTimeAlarmCannotSkipNorATimerBeDisabledWithTheDaemonsReason() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        _ = try await daemon.alarmctl(["schedule", "--at", "7pm", "--id", AlarmCommandTests.id(1)])
        _ = try await daemon.alarmctl(["timer", "1h", "--id", AlarmCommandTests.id(2)])
        let skipped = try await daemon.alarmctl(["skip", "AAAA0001"])
        #expect(skipped.exitStatus == 1)
        #expect(skipped.standardError
            == "alarmctl: cannot skip alarm \(AlarmCommandTests.id(1)): only a weekly alarm skips a day (disable a one-time alarm instead)\n")
        let disabled = try await daemon.alarmctl(["disable", "AAAA0002"])
        #expect(disabled.exitStatus == 1)
        #expect(disabled.standardError
            == "alarmctl: cannot disable alarm \(AlarmCommandTests.id(2)): a timer has no schedule to disable (cancel it instead)\n")
    }

    @Test func scheduleTakesRangesAndTwelveHourTimes() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        let result = try await daemon.alarmctl(["schedule", "--at", "6:45pm", "--repeat", "fri-mon", "--json"])
        #expect(result.exitStatus == 0, "stderr: \(result.standardError)")
        let schedule = try Output.json(result.standardOutput)["alarm"]?["schedule"]
        #expect(schedule?["time"] == .string("18:45"))
        #expect(schedule?["repeat"] == .array(["mon", "fri", "sat", "sun"].map { .string($0) }))
    }
}
