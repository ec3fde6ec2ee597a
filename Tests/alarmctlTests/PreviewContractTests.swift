import AlarmTestKit
import Testing

/// `alarmctl preview` as scripts call it: the built executable, its stdout, stderr and exit status.
///
/// The DST table follows systemd's test-calendarspec: one row per case, the expected instants
/// written out by hand from the zones' rules. Every printed instant is also checked against the
/// system's tz database through GNU `date` (glibc), independently of alarmd's own tz code.
@Suite struct PreviewContractTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let zone: String
        let time: String
        let after: String
        let days: String?
        let count: Int
        let expected: [String]
        let note: String

        var testDescription: String { "\(zone) \(time) \(days ?? "once") after \(after): \(note)" }

        var arguments: [String] {
            var arguments = ["preview", "--at", time, "--time-zone", zone, "--after", after]
            if let days { arguments += ["--repeat", days, "--count", String(count)] }
            return arguments
        }
    }

    static func once(_ zone: String, _ time: String, after: String, _ expected: String, _ note: String) -> Row {
        Row(zone: zone, time: time, after: after, days: nil, count: 1, expected: [expected], note: note)
    }

    static func weekly(_ zone: String, _ time: String, _ days: String, after: String, _ expected: [String], _ note: String) -> Row {
        Row(zone: zone, time: time, after: after, days: days, count: expected.count, expected: expected, note: note)
    }

    static let daylightSavingTable: [Row] = [
        once("Europe/Berlin", "02:30", after: "2026-03-28T12:00:00Z", "2026-03-29T03:30:00+02:00", "inside the spring gap: shifted by the gap"),
        once("Europe/Berlin", "02:00", after: "2026-03-28T12:00:00Z", "2026-03-29T03:00:00+02:00", "the gap's first minute"),
        once("Europe/Berlin", "03:00", after: "2026-03-28T12:00:00Z", "2026-03-29T03:00:00+02:00", "just after the gap"),
        once("Europe/Berlin", "01:59", after: "2026-03-28T12:00:00Z", "2026-03-29T01:59:00+01:00", "just before the gap"),
        once("Europe/Berlin", "02:30", after: "2026-10-24T12:00:00Z", "2026-10-25T02:30:00+02:00", "repeated hour: the first occurrence"),
        once("Europe/Berlin", "02:00", after: "2026-10-24T12:00:00Z", "2026-10-25T02:00:00+02:00", "repeated hour's first minute"),
        once("Europe/Berlin", "03:00", after: "2026-10-24T12:00:00Z", "2026-10-25T03:00:00+01:00", "after the repeated hour"),
        once("Europe/Berlin", "01:59", after: "2026-10-24T12:00:00Z", "2026-10-25T01:59:00+02:00", "before the repeated hour"),
        once("Europe/Berlin", "02:30", after: "2026-10-25T00:30:00Z", "2026-10-26T02:30:00+01:00", "the second 02:30 is not a new occurrence"),
        once("Europe/Berlin", "02:30", after: "2100-03-27T12:00:00Z", "2100-03-28T03:30:00+02:00", "past the file's last transition"),
        once("Europe/Berlin", "02:30", after: "2100-10-30T12:00:00Z", "2100-10-31T02:30:00+02:00", "past the file's last transition, autumn"),
        weekly("Europe/Berlin", "02:30", "sun", after: "2026-03-20T00:00:00Z",
               ["2026-03-22T02:30:00+01:00", "2026-03-29T03:30:00+02:00", "2026-04-05T02:30:00+02:00"], "weekly across the gap"),
        weekly("Europe/Berlin", "02:30", "Sunday", after: "2026-10-17T00:00:00Z",
               ["2026-10-18T02:30:00+02:00", "2026-10-25T02:30:00+02:00", "2026-11-01T02:30:00+01:00"], "weekly across the fold"),
        once("Europe/Dublin", "01:30", after: "2026-03-28T12:00:00Z", "2026-03-29T02:30:00+01:00", "gap (negative DST in the source)"),
        once("Europe/Dublin", "01:30", after: "2026-10-24T12:00:00Z", "2026-10-25T01:30:00+01:00", "fold (negative DST in the source)"),
        once("America/New_York", "02:30", after: "2026-03-07T12:00:00Z", "2026-03-08T03:30:00-04:00", "gap"),
        once("America/New_York", "01:30", after: "2026-10-31T12:00:00Z", "2026-11-01T01:30:00-04:00", "fold: the first, EDT"),
        weekly("America/New_York", "02:30", "sun,SAT", after: "2026-03-06T12:00:00Z",
               ["2026-03-07T02:30:00-05:00", "2026-03-08T03:30:00-04:00", "2026-03-14T02:30:00-04:00"], "weekly across the gap"),
        once("Pacific/Auckland", "02:30", after: "2026-09-26T00:00:00Z", "2026-09-27T03:30:00+13:00", "southern spring gap"),
        once("Pacific/Auckland", "02:30", after: "2026-04-04T00:00:00Z", "2026-04-05T02:30:00+13:00", "southern autumn fold"),
        once("Australia/Lord_Howe", "02:15", after: "2026-10-03T00:00:00Z", "2026-10-04T02:45:00+11:00", "30-minute gap"),
        once("Australia/Lord_Howe", "02:00", after: "2026-10-03T00:00:00Z", "2026-10-04T02:30:00+11:00", "30-minute gap's first minute"),
        once("Australia/Lord_Howe", "01:45", after: "2026-04-04T00:00:00Z", "2026-04-05T01:45:00+11:00", "30-minute fold"),
        weekly("Australia/Lord_Howe", "02:15", "sun,mon", after: "2026-09-30T00:00:00Z",
               ["2026-10-04T02:45:00+11:00", "2026-10-05T02:15:00+11:00", "2026-10-11T02:15:00+11:00"], "weekly across the 30-minute gap"),
        once("Pacific/Chatham", "03:00", after: "2026-09-26T00:00:00Z", "2026-09-27T04:00:00+13:45", "gap at +12:45"),
        once("Pacific/Chatham", "03:00", after: "2026-04-04T00:00:00Z", "2026-04-05T03:00:00+13:45", "fold at +13:45"),
        once("America/St_Johns", "02:30", after: "2026-03-07T12:00:00Z", "2026-03-08T03:30:00-02:30", "gap at -03:30"),
        once("America/St_Johns", "01:30", after: "2026-10-31T12:00:00Z", "2026-11-01T01:30:00-02:30", "fold at -02:30"),
    ]

    @Test(arguments: daylightSavingTable)
    func previewFollowsTheDaylightSavingPolicyAndTheSystemTZData(_ row: Row) async throws {
        let result = try await ChildProcess.run(ChildProcess.product("alarmctl"), row.arguments)
        #expect(result.exitStatus == 0, "stderr: \(result.standardError)")
        #expect(result.standardError.isEmpty)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines == row.expected)
        for line in lines {
            #expect(try await Self.systemRendering(of: line, in: row.zone) == line, "glibc disagrees about \(line)")
        }
    }

    /// How glibc, reading /usr/share/zoneinfo, writes the same instant in `zone`.
    static func systemRendering(of instant: String, in zone: String) async throws -> String {
        let seconds = try await ChildProcess.run("/bin/date", ["-u", "-d", instant, "+%s"]).standardOutput
            .filter { !$0.isWhitespace }
        return try await ChildProcess.run("/bin/date", ["-d", "@" + seconds, "+%Y-%m-%dT%H:%M:%S%:z"], environment: ["TZ": zone])
            .standardOutput.filter { !$0.isWhitespace }
    }

    /// The forms people write: one-digit and 12-hour times, ranges (one wrapping over the weekend)
    /// and names for sets of days, as `schedule --at --repeat` takes them too.
    static let peoplesForms: [Row] = [
        weekly("UTC", "7:05", "mon-fri", after: "2026-11-20T12:00:00Z",
               ["2026-11-23T07:05:00+00:00", "2026-11-24T07:05:00+00:00"], "one-digit hour, a range"),
        weekly("UTC", "7:30pm", "fri-mon", after: "2026-11-19T12:00:00Z",
               ["2026-11-20T19:30:00+00:00", "2026-11-21T19:30:00+00:00", "2026-11-22T19:30:00+00:00",
                "2026-11-23T19:30:00+00:00", "2026-11-27T19:30:00+00:00"], "12-hour, a range over the weekend"),
        weekly("UTC", "12am", "weekends", after: "2026-11-19T12:00:00Z",
               ["2026-11-21T00:00:00+00:00", "2026-11-22T00:00:00+00:00", "2026-11-28T00:00:00+00:00"], "12am is midnight"),
        weekly("UTC", "12:15 PM", "weekdays,sun", after: "2026-11-20T13:00:00Z",
               ["2026-11-22T12:15:00+00:00", "2026-11-23T12:15:00+00:00"], "12pm is noon; a set and a day"),
        weekly("UTC", "06:45", "daily", after: "2026-11-20T12:00:00Z",
               ["2026-11-21T06:45:00+00:00", "2026-11-22T06:45:00+00:00"], "daily"),
    ]

    @Test(arguments: peoplesForms)
    func previewTakesTheFormsPeopleWrite(_ row: Row) async throws {
        let result = try await ChildProcess.run(ChildProcess.product("alarmctl"), row.arguments)
        #expect(result.exitStatus == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.split(separator: "\n").map(String.init) == row.expected)
    }

    @Test func withoutRepeatExactlyOneLineIsPrintedWhateverTheCount() async throws {
        let result = try await ChildProcess.run(
            ChildProcess.product("alarmctl"),
            ["preview", "--at", "07:00", "--time-zone", "UTC", "--after", "2026-11-21T06:00:00Z", "--count", "5"])
        #expect(result.standardOutput == "2026-11-21T07:00:00+00:00\n")
    }

    @Test func theDefaultsAreTheSystemZoneAndNow() async throws {
        let result = try await ChildProcess.run(
            ChildProcess.product("alarmctl"), ["preview", "--at", "07:00"], environment: ["TZ": "Asia/Tokyo"])
        #expect(result.exitStatus == 0)
        #expect(result.standardOutput.hasSuffix("T07:00:00+09:00\n"))
    }

    static let badInputs: [([String], String)] = [
        (["--at", "25:00"], "25:00"),
        (["--at", "7:60"], "7:60"),
        (["--at", "seven"], "seven"),
        (["--at", "07:00", "--time-zone", "Mars/Olympus_Mons"], "Mars/Olympus_Mons"),
        (["--at", "07:00", "--time-zone", "../../etc/passwd"], "../../etc/passwd"),
        (["--at", "07:00", "--repeat", "mon,funday"], "funday"),
        (["--at", "07:00", "--repeat", "mon,,tue"], "\"\""),
        (["--at", "07:00", "--repeat", "mon-"], "mon-"),
        (["--at", "12:60pm"], "12:60pm"),
        (["--at", "pm"], "pm"),
        (["--at", "07:00", "--after", "tomorrow"], "tomorrow"),
        (["--at", "07:00", "--after", "2026-03-29T03:30:00"], "2026-03-29T03:30:00"),
        (["--at", "07:00", "--after", "2026-02-30T00:00:00Z"], "2026-02-30T00:00:00Z"),
        (["--at", "07:00", "--repeat", "mon", "--count", "0"], "0"),
        (["--at", "07:00", "--repeat", "mon", "--count", "-3"], "-3"),
        (["--at", "07:00", "--repeat", "mon", "--count", "many"], "many"),
        ([], "--at"),
    ]

    @Test(arguments: badInputs)
    func badInputGivesOneLineOnStderrNamingTheValueAndANonZeroExit(_ arguments: [String], _ named: String) async throws {
        let result = try await ChildProcess.run(ChildProcess.product("alarmctl"), ["preview"] + arguments)
        #expect(result.exitStatus != 0)
        #expect(result.standardOutput.isEmpty)
        let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(lines.count == 1, "stderr: \(result.standardError)")
        #expect(result.standardError.contains(named), "stderr does not name \(named): \(result.standardError)")
    }
}
