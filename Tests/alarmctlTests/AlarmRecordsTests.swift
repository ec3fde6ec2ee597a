import AlarmControl
import AlarmModel
import AlarmProtocol
import AlarmKitCore
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Testing

/// What alarmctl prints when the daemon reports records (`alarmRecords`): titles, the next
/// occurrence as the engine has it, and the time left of countdowns.
@Suite(.timeLimit(.minutes(5)))
struct AlarmRecordsTests {
    /// The clock stands still at a whole minute near now, so that alarmctl's own clock agrees.
    static func start() -> Date {
        Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60)
    }

    @Test func listShowsTitlesTheNextOccurrenceAndTheTimeLeft() async throws {
        let start = Self.start()
        let daemon = try RecordsServer(now: start)
        let wake = AlarmCommandTests.id(1)
        let tea = AlarmCommandTests.id(2)
        let scheduled = try await daemon.alarmctl(["schedule", "--at", "07:00", "--title", "Wake up", "--id", wake])
        #expect(scheduled.exitStatus == 0, "stderr: \(scheduled.standardError)")
        _ = try await daemon.alarmctl(["timer", "1h", "--title", "Tea", "--id", tea])
        // Paused on a clock that has not moved: exactly an hour left.
        let paused = try await daemon.alarmctl(["pause", "AAAA0002"])
        #expect(paused.standardOutput == "Paused \(tea) \"Tea\"\n")

        let next = nextOccurrence(of: CivilTime(hour: 7, minute: 0)!, weekdays: nil, after: start, onOrAfter: nil, in: .utc).instant
        let when = Self.localText(next)
        let table = try await daemon.alarmctl(["list"])
        #expect(table.exitStatus == 0, "stderr: \(table.standardError)")
        #expect(table.standardOutput == """
            ID        STATE      WHEN                  REPEAT  TITLE
            AAAA0001  scheduled  \(when)  once    Wake up
            AAAA0002  paused     1h left               timer   Tea

            """)

        let json = try Output.json(try await daemon.alarmctl(["list", "--json"]).standardOutput)
        let alarms = Output.array(json["alarms"])
        #expect(alarms.map { $0["title"] } == [.string("Wake up"), .string("Tea")])
        #expect(alarms.map { $0["nextAlert"] } == [.string(ISO8601.format(next, in: .utc)), .null])
        #expect(alarms.map { $0["remaining"] } == [.null, .integer(3600)])
        #expect(alarms.map { $0["secondary"] } == [.string("snooze"), .string("snooze")])
        #expect(alarms.map { $0["sound"] } == [.string("default"), .string("default")])

        // Running again: the end is an hour after the clock's now, alarmctl counts from its own.
        _ = try await daemon.alarmctl(["resume", "AAAA0002"])
        let running = try Output.json(try await daemon.alarmctl(["show", "AAAA0002", "--json"]).standardOutput)["alarm"]
        #expect(running?["nextAlert"] == .string(ISO8601.format(start.addingTimeInterval(3600), in: .utc)))
        let remaining = running?["remaining"]?.integerValue ?? -1
        #expect((3000...3600).contains(remaining))
        await daemon.stop()
    }

    @Test func showPrintsEveryFieldOfTheRecord() async throws {
        let start = Self.start()
        let daemon = try RecordsServer(now: start)
        let id = AlarmCommandTests.id(3)
        _ = try await daemon.alarmctl([
            "schedule", "--on", ISO8601.format(start.addingTimeInterval(7200), in: .utc), "--title", "Train",
            "--sound", "birds.wav", "--secondary", "custom", "--snooze", "90s", "--id", id,
        ])
        let shown = try await daemon.alarmctl(["show", "aaaa0003"])
        #expect(shown.exitStatus == 0, "stderr: \(shown.standardError)")
        let at = ISO8601.format(start.addingTimeInterval(7200), in: .utc)
        #expect(shown.standardOutput == """
            ID:          \(id)
            Title:       Train
            State:       scheduled
            Owner:       root (uid 0)
            Schedule:    once at \(at)
            When:        \(Self.localText(start.addingTimeInterval(7200)))
            Next alert:  \(at)
            Countdown:   none
            Snooze:      1m30s
            Sound:       birds.wav
            Wake:        the household's fade-in, to the household's volume, the household's sunrise
            Secondary:   custom (button "Open"), intent alarmctl.custom
            Created:     \(String(ISO8601.format(start, in: .utc).prefix(19)).replacing("T", with: " "))

            """)
        let everyone = try await daemon.alarmctl(["list", "--all"])
        let row: [String] = Output.lines(everyone.standardOutput).last?.split(separator: " ").map(String.init) ?? []
        let when: [String] = Self.localText(start.addingTimeInterval(7200)).split(separator: " ").map(String.init)
        #expect(row == ["AAAA0003", "root", "scheduled"] + when + ["once", "Train"])
        await daemon.stop()
    }

    /// `Sun 2026-11-22 07:00`, as alarmctl writes a local time in UTC.
    static func localText(_ date: Date) -> String {
        let local = TimeZoneRules.utc.localDateTime(at: date)
        let names = [1: "Sun", 2: "Mon", 3: "Tue", 4: "Wed", 5: "Thu", 6: "Fri", 7: "Sat"]
        let weekday = [Locale.Weekday.sunday, .monday, .tuesday, .wednesday, .thursday, .friday, .saturday]
            .firstIndex(of: local.date.weekday).map { names[$0 + 1]! } ?? "?"
        return "\(weekday) \(local.date) \(String(local.time.description.prefix(5)))"
    }
}
