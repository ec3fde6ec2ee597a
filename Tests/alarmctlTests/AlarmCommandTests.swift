import AlarmControl
import AlarmProtocol
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Glibc
import Testing

/// `alarmctl schedule`, `timer`, `list`, `show` and the state changes against a real alarmd on
/// the simulated board: the built executables, their output and exit statuses.
@Suite(.timeLimit(.minutes(5)))
struct AlarmCommandTests {
    /// A fixed alarm id, so that prefixes are known in advance.
    static func id(_ number: Int, prefix: String = "AAAA") -> String {
        let digits = String(number)
        return prefix + String(repeating: "0", count: 4 - digits.count) + digits + "-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits
    }

    static let alarmKeys = [
        "countdown", "enabled", "id", "nextAlert", "owner", "remaining", "schedule", "secondary", "skippedDate", "sound", "state", "title", "wake",
    ]

    @Test func scheduleTakesEveryOptionAndShowPrintsThemAll() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        let records = try await daemon.reportsRecords()
        let id = Self.id(1)
        let scheduled = try await daemon.alarmctl([
            "schedule", "--at", "07:00", "--repeat", "mon,Friday", "--title", "Wake up", "--snooze", "5m",
            "--countdown", "2m", "--sound", "birds.wav", "--secondary", "custom", "--id", id, "--json",
        ])
        #expect(scheduled.exitStatus == 0, "stderr: \(scheduled.standardError)")
        let alarm = try Output.json(scheduled.standardOutput)["alarm"]
        #expect(Output.keys(alarm) == Self.alarmKeys)
        #expect(alarm?["id"] == .string(id))
        #expect(alarm?["state"] == .string("scheduled"))
        #expect(alarm?["owner"] == .integer(0))
        #expect(alarm?["schedule"] == .object(["type": .string("relative"), "time": .string("07:00"), "repeat": .array([.string("mon"), .string("fri")])]))
        #expect(alarm?["countdown"] == .object(["preAlert": .integer(120), "postAlert": .integer(300)]))
        #expect(alarm?["nextAlert"]?.stringValue?.hasSuffix("T07:00:00+00:00") == true)
        #expect(alarm?["remaining"] == .null)
        #expect(alarm?["title"] == (records ? .string("Wake up") : .null))
        #expect(alarm?["sound"] == (records ? .string("birds.wav") : .null))
        #expect(alarm?["secondary"] == (records ? .string("custom") : .null))

        let shownJSON = try await daemon.alarmctl(["show", "aaaa0001", "--json"])
        #expect(try Output.json(shownJSON.standardOutput)["alarm"] == alarm)

        let shown = try await daemon.alarmctl(["show", "AAAA0001"])
        #expect(shown.exitStatus == 0)
        let lines = Output.lines(shown.standardOutput)
        #expect(lines.contains("ID:          \(id)"))
        #expect(lines.contains("State:       scheduled"))
        #expect(lines.contains("Owner:       root (uid 0)"))
        #expect(lines.contains("Schedule:    07:00 local time, weekly on mon,fri"))
        #expect(lines.contains("Countdown:   2m before it rings"))
        #expect(lines.contains("Snooze:      5m"))
        if records {
            #expect(lines.contains("Title:       Wake up"))
            #expect(lines.contains("Sound:       birds.wav"))
            #expect(lines.contains("Secondary:   custom (button \"Open\"), intent alarmctl.custom"))
        }
    }

    @Test func aSoundThatCannotRingIsRefusedWhenChosenWithTheReason() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        let sounds = daemon.directory.path + "/sounds"
        try TestSoundFiles.write(TestSoundFiles.sine(frequency: 880, seconds: 1, rate: 44_100), to: sounds + "/chime.mp3", as: .mp3, rate: 44_100)
        try TestFiles.write(Array("not a sound".utf8), to: sounds + "/notes.ogg")

        let mp3 = try await daemon.alarmctl(["schedule", "--at", "07:00", "--sound", "chime.mp3"])
        #expect(mp3.exitStatus == 0, "stderr: \(mp3.standardError)")
        let missing = try await daemon.alarmctl(["schedule", "--at", "07:00", "--sound", "gone.flac"])
        #expect(missing.exitStatus != 0)
        #expect(missing.standardError.contains("sound \"gone.flac\" cannot ring: cannot be opened: No such file or directory"), "\(missing.standardError)")
        let text = try await daemon.alarmctl(["schedule", "--at", "07:00", "--sound", "notes.ogg"])
        #expect(text.exitStatus != 0)
        #expect(text.standardError.contains("sound \"notes.ogg\" cannot ring: "), "\(text.standardError)")

        let listed = try await daemon.alarmctl(["list", "--json"])
        #expect(Output.array(try Output.json(listed.standardOutput)["alarms"]).count == 1, "only the MP3's alarm was accepted")
        let names = try await daemon.alarmctl(["sounds", "--json"])
        #expect(try Output.json(names.standardOutput)["sounds"] == .array(["birds.wav", "chime.mp3", "notes.ogg"].map { .string($0) }))
    }

    @Test func scheduleOnAnInstantIsFixedInTimeAndDefaultsToANineMinuteSnooze() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        let tomorrow = Date(timeIntervalSince1970: ((Date().timeIntervalSince1970 + 86_400) / 60).rounded(.down) * 60)
        let instant = ISO8601.format(tomorrow, in: .utc)
        let fixed = try await daemon.alarmctl(["schedule", "--on", instant, "--id", Self.id(1), "--json"])
        #expect(fixed.exitStatus == 0, "stderr: \(fixed.standardError)")
        let alarm = try Output.json(fixed.standardOutput)["alarm"]
        #expect(alarm?["schedule"] == .object(["type": .string("fixed"), "at": .string(instant)]))
        #expect(alarm?["countdown"] == .object(["preAlert": .null, "postAlert": .integer(540)]))
        #expect(alarm?["nextAlert"] == .string(instant))

        // A local date and time is read in the caller's zone, and printed with its offset.
        let local = try await daemon.alarmctl(
            ["schedule", "--on", "2030-01-02T03:04", "--secondary", "none", "--id", Self.id(2), "--json"],
            environment: ["TZ": "Europe/Berlin"])
        #expect(local.exitStatus == 0, "stderr: \(local.standardError)")
        let berlin = try Output.json(local.standardOutput)["alarm"]
        #expect(berlin?["schedule"] == .object(["type": .string("fixed"), "at": .string("2030-01-02T03:04:00+01:00")]))
        #expect(berlin?["countdown"] == .null)

        let text = try await daemon.alarmctl(["schedule", "--on", "2030-01-02T03:04:00Z", "--title", "Flight"])
        #expect(text.exitStatus == 0)
        #expect(text.standardOutput.hasPrefix("Scheduled "))
        #expect(text.standardOutput.hasSuffix("\"Flight\": rings Wed 2030-01-02 03:04\n"))
    }

    @Test func aTimerCountsDownAndPausesAndResumesByIdPrefix() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        let records = try await daemon.reportsRecords()
        let id = Self.id(7)
        let started = try await daemon.alarmctl(["timer", "1h", "--title", "Tea", "--id", id])
        #expect(started.exitStatus == 0, "stderr: \(started.standardError)")
        #expect(started.standardOutput.hasPrefix("Started timer \(id) \"Tea\": rings "))

        func state() async throws -> JSONValue? {
            try Output.json(try await daemon.alarmctl(["show", "AAAA0007", "--json"]).standardOutput)["alarm"]?["state"]
        }
        #expect(try await state() == .string("countdown"))

        let paused = try await daemon.alarmctl(["pause", "aaaa0007"])
        #expect(paused.exitStatus == 0, "stderr: \(paused.standardError)")
        #expect(paused.standardOutput == "Paused \(id)\(records ? " \"Tea\"" : "")\n")
        #expect(try await state() == .string("paused"))

        let pausedAgain = try await daemon.alarmctl(["pause", "AAAA0007"])
        #expect(pausedAgain.exitStatus == 1)
        #expect(pausedAgain.standardError == "alarmctl: cannot pause alarm \(id) while it is paused\n")

        let resumed = try await daemon.alarmctl(["resume", "AAAA-0007"])
        #expect(resumed.exitStatus == 0, "stderr: \(resumed.standardError)")
        #expect(try await state() == .string("countdown"))

        let timer = try Output.json(try await daemon.alarmctl(["show", "AAAA0007", "--json"]).standardOutput)["alarm"]
        #expect(timer?["schedule"] == .null)
        #expect(timer?["countdown"] == .object(["preAlert": .integer(3600), "postAlert": .integer(3600)]))
        if records {
            let remaining = timer?["remaining"]?.integerValue ?? 0
            #expect((3000...3600).contains(remaining))
        }
    }

    @Test func listPrintsATableAndAStableJSONShape() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        let records = try await daemon.reportsRecords()
        let empty = try await daemon.alarmctl(["list"])
        #expect(empty.exitStatus == 0)
        #expect(empty.standardOutput == "You have no alarms.\n")
        let emptyJSON = try await daemon.alarmctl(["list", "--json"])
        #expect(try Output.json(emptyJSON.standardOutput) == .object(["version": .integer(1), "alarms": .array([])]))

        _ = try await daemon.alarmctl(["schedule", "--at", "06:30", "--repeat", "mon,tue,wed,thu,fri", "--title", "Work", "--id", Self.id(1)])
        _ = try await daemon.alarmctl(["timer", "25m", "--title", "Pasta", "--id", Self.id(2)])
        let table = try await daemon.alarmctl(["list"])
        #expect(table.exitStatus == 0, "stderr: \(table.standardError)")
        let lines = Output.lines(table.standardOutput)
        #expect(lines.count == 3)
        #expect(lines.first?.split(separator: " ") == ["ID", "STATE", "WHEN", "REPEAT", "TITLE"])
        let work = lines.dropFirst().first { $0.hasPrefix("AAAA0001  ") }?.split(separator: " ").map(String.init) ?? []
        #expect(work.first == "AAAA0001")
        #expect(work.dropFirst().first == "scheduled")
        #expect(work.contains("06:30"))
        #expect(work.contains("weekdays"))
        #expect(work.last == (records ? "Work" : "-"))
        let pasta = lines.dropFirst().first { $0.hasPrefix("AAAA0002  ") }?.split(separator: " ").map(String.init) ?? []
        #expect(pasta.dropFirst().first == "countdown")
        #expect(pasta.contains("timer"))
        #expect(pasta.last == (records ? "Pasta" : "-"))

        let json = try Output.json(try await daemon.alarmctl(["list", "--json"]).standardOutput)
        #expect(Output.keys(json) == ["alarms", "version"])
        #expect(json["version"] == .integer(1))
        let alarms = Output.array(json["alarms"])
        #expect(alarms.count == 2)
        for alarm in alarms { #expect(Output.keys(alarm) == Self.alarmKeys) }
        #expect(Set(alarms.compactMap { $0["id"]?.stringValue }) == [Self.id(1), Self.id(2)])

        let everyone = try await daemon.alarmctl(["list", "--all"])
        #expect(everyone.exitStatus == 0, "stderr: \(everyone.standardError)")
        #expect(Output.lines(everyone.standardOutput).first?.split(separator: " ") == ["ID", "OWNER", "STATE", "WHEN", "REPEAT", "TITLE"])
        #expect(Output.lines(everyone.standardOutput).dropFirst().allSatisfy { $0.split(separator: " ")[1] == "root" })
    }

    @Test func anAmbiguousOrUnknownPrefixIsRefusedInOneLine() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        for number in [1, 2] {
            _ = try await daemon.alarmctl(["schedule", "--at", "08:00", "--id", Self.id(number)])
        }
        let ambiguous = try await daemon.alarmctl(["show", "AAAA"])
        #expect(ambiguous.exitStatus == 1)
        #expect(ambiguous.standardOutput.isEmpty)
        #expect(ambiguous.standardError.hasPrefix("alarmctl: id prefix AAAA is ambiguous: it matches 2 alarms"))
        #expect(Output.lines(ambiguous.standardError).count == 1)

        let unknown = try await daemon.alarmctl(["cancel", "BBBB"])
        #expect(unknown.exitStatus == 1)
        #expect(unknown.standardError == "alarmctl: no alarm of yours has an id starting with BBBB\n")

        let unique = try await daemon.alarmctl(["show", "AAAA0002"])
        #expect(unique.exitStatus == 0)
        #expect(unique.standardOutput.hasPrefix("ID:          \(Self.id(2))\n"))
    }

    @Test func cancelDeletesTheAlarm() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        _ = try await daemon.alarmctl(["schedule", "--at", "08:00", "--id", Self.id(3)])
        let cancelled = try await daemon.alarmctl(["cancel", "AAAA0003"])
        #expect(cancelled.exitStatus == 0, "stderr: \(cancelled.standardError)")
        #expect(cancelled.standardOutput.hasPrefix("Cancelled \(Self.id(3))"))
        #expect(try await daemon.alarmctl(["list"]).standardOutput == "You have no alarms.\n")
    }

    @Test func stopIsRefusedWhileScheduledWithTheDaemonsMessage() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        _ = try await daemon.alarmctl(["schedule", "--at", "08:00", "--id", Self.id(4)])
        let stopped = try await daemon.alarmctl(["stop", "AAAA0004"])
        #expect(stopped.exitStatus == 1)
        #expect(stopped.standardOutput.isEmpty)
        #expect(stopped.standardError == "alarmctl: cannot stop alarm \(Self.id(4)) while it is scheduled\n")
    }

    @Test func snoozeIsRefusedWhenNotAlerting() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        _ = try await daemon.alarmctl(["timer", "1h", "--id", Self.id(5)])
        let snoozed = try await daemon.alarmctl(["snooze", "AAAA0005"])
        #expect(snoozed.exitStatus == 1)
        #expect(snoozed.standardError == "alarmctl: cannot countdown alarm \(Self.id(5)) while it is countdown\n")
    }

    @Test func theSocketOptionWinsOverTheEnvironment() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        let result = try await daemon.alarmctl(
            ["list", "--socket", daemon.socket], environment: ["ALARMD_SOCKET": daemon.directory.path + "/elsewhere.sock"])
        #expect(result.exitStatus == 0, "stderr: \(result.standardError)")
        let viaEnvironment = try await daemon.alarmctl(["list"], environment: ["ALARMD_SOCKET": daemon.directory.path + "/elsewhere.sock"])
        #expect(viaEnvironment.exitStatus == 69)
    }

    /// As systemctl, git and docker take theirs: before the command, or after it.
    @Test(arguments: [
        ["--socket", "SOCKET", "list"], ["list", "--socket", "SOCKET"], ["--socket=SOCKET", "list", "--json"],
        ["--socket", "SOCKET", "auth", "status"], ["auth", "status", "--socket", "SOCKET"],
        ["--socket", "SOCKET", "timer", "5m", "--title", "Tea"], ["--socket", "SOCKET", "list", "--socket", "SOCKET"],
    ])
    func theSocketOptionGoesBeforeOrAfterTheCommand(arguments: [String]) async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        let elsewhere = ["ALARMD_SOCKET": daemon.directory.path + "/elsewhere.sock"]
        let result = try await daemon.alarmctl(arguments.map { $0.replacing("SOCKET", with: daemon.socket) }, environment: elsewhere)
        #expect(result.exitStatus == 0, "stderr: \(result.standardError)")
        #expect(result.standardError.isEmpty)
    }
}

/// Text from others (a title another user set, the daemon's messages) reaches the terminal with
/// every control character, bidi override and line separator shown as `\u{XX}`, never raw.
@Suite(.timeLimit(.minutes(5)))
struct TerminalEscapingTests {
    /// ESC sequences that clear the screen and retitle the window, BEL, a newline, a right-to-left
    /// override, a C1 CSI and DEL.
    static let hostileTitle = "Wake\u{1B}[2J\u{1B}]0;pwned\u{07}\nrm -rf\u{202E}txt.exe\u{9B}31m\u{7F}"
    static let shownTitle = #"Wake\u{1B}[2J\u{1B}]0;pwned\u{07}\u{0A}rm -rf\u{202E}txt.exe\u{9B}31m\u{7F}"#

    /// Whether `output` holds a character a terminal would act on, other than its own line ends.
    static func hasRawControls(_ output: String) -> Bool {
        output.unicodeScalars.contains { scalar in
            guard scalar != "\n" else { return false }
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: return true
            default: return false
            }
        }
    }

    @Test func aTitleIsShownEscapedByScheduleListShowAndWatch() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        try #require(try await daemon.reportsRecords(), "this alarmd does not report titles")
        let id = AlarmCommandTests.id(1)
        let scheduled = try await daemon.alarmctl(["schedule", "--at", "07:00", "--title", Self.hostileTitle, "--id", id])
        #expect(scheduled.exitStatus == 0, "stderr: \(scheduled.standardError)")
        #expect(scheduled.standardOutput.contains("\"\(Self.shownTitle)\""), "\(scheduled.standardOutput)")

        for arguments in [["list"], ["list", "--all"], ["show", "AAAA0001"]] {
            let result = try await daemon.alarmctl(arguments)
            let output = result.standardOutput + result.standardError
            #expect(!Self.hasRawControls(output), "\(arguments): \(output.debugDescription)")
            if arguments.first == "list" {
                let lines = Output.lines(result.standardOutput)
                #expect(lines.count == 2, "one row, whatever the title holds: \(lines)")
                #expect(lines.last?.hasSuffix("  " + Self.shownTitle) == true, "\(lines)")
            } else if arguments.first == "show" {
                #expect(Output.lines(result.standardOutput).contains("Title:       " + Self.shownTitle))
            }
        }

        // JSON stays JSON: the same title once read, with nothing raw a terminal would act on.
        let json = try await daemon.alarmctl(["list", "--json"])
        #expect(!Self.hasRawControls(json.standardOutput), "\(json.standardOutput.debugDescription)")
        #expect(Output.array(try Output.json(json.standardOutput)["alarms"]).first?["title"] == .string(Self.hostileTitle))

        let watch = try RunningChild(
            ChildProcess.product("alarmctl"), ["watch", "--socket", daemon.socket], standardErrorPath: daemon.directory.path + "/watch.err")
        defer {
            watch.kill(SIGKILL)
            watch.wait()
        }
        let line = try #require(try watch.readLine())
        #expect(line.hasSuffix("AAAA0001  scheduled  " + Self.shownTitle), "\(line.debugDescription)")
        #expect(!Self.hasRawControls(line))

        let cancelled = try await daemon.alarmctl(["cancel", "AAAA0001"])
        #expect(cancelled.standardOutput == "Cancelled \(id) \"\(Self.shownTitle)\"\n", "\(cancelled.standardOutput.debugDescription)")
        let gone = try #require(try watch.readLine())
        #expect(gone.hasSuffix("AAAA0001  gone       " + Self.shownTitle), "\(gone.debugDescription)")
    }

    @Test func anErrorLineShowsWhatItQuotesEscaped() async throws {
        let result = try await ChildProcess.run(
            ChildProcess.product("alarmctl"), ["show", "6F\u{1B}[2J\u{202E}"], environment: ["ALARMD_SOCKET": "/nonexistent/alarmd.sock"])
        #expect(result.exitStatus == 64)
        #expect(result.standardError == #"alarmctl: invalid alarm id "6F\u{1B}[2J\u{202E}": expected an id or its first characters, such as 6F0C1A2B"# + "\n")
    }
}
