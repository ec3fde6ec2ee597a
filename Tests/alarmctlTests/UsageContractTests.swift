import AlarmTestKit
import Glibc
import Testing

/// alarmctl's error contract without a daemon: one line on stderr, `alarmctl: ...`, naming the
/// bad value; 64 for bad arguments, 69 with a hint when alarmd is not there.
@Suite struct UsageContractTests {
    static let badArguments: [([String], String)] = [
        (["timer", "9x"], "9x"),
        (["timer", "0"], "\"0\""),
        (["timer", "-5m"], "-5m"),
        (["timer", "400d"], "400d"),
        (["timer", "8785h"], "8785h"),
        (["schedule", "--at", "07:00", "--snooze", "soon"], "soon"),
        (["schedule", "--at", "07:00", "--countdown", "1h30"], "1h30"),
        (["schedule", "--at", "25:00"], "25:00"),
        (["schedule", "--at", "07:00", "--repeat", "mon,funday"], "funday"),
        (["schedule", "--at", "07:00", "--repeat", "mon-funday"], "mon-funday"),
        (["schedule", "--at", "07:00", "--repeat", "mon-wed-fri"], "mon-wed-fri"),
        (["schedule", "--at", "07:00", "--repeat", "weekday"], "weekday"),
        (["schedule", "--at", "13pm"], "13pm"),
        (["schedule", "--at", "0am"], "0am"),
        (["schedule", "--at", "7:5"], "7:5"),
        (["schedule", "--at", "7.30"], "7.30"),
        (["disable", "xyz!"], "xyz!"),
        (["skip", ""], "\"\""),
        (["schedule"], "--at"),
        (["schedule", "--at", "07:00", "--on", "2030-01-01T07:00Z"], "--on"),
        (["schedule", "--on", "2030-01-01T07:00Z", "--repeat", "mon"], "--repeat"),
        (["schedule", "--on", "tomorrow"], "tomorrow"),
        (["schedule", "--on", "2020-01-01T07:00:00Z"], "2020-01-01T07:00:00Z"),
        (["schedule", "--at", "07:00", "--secondary", "later"], "later"),
        (["schedule", "--at", "07:00", "--sound", "../etc/passwd"], "../etc/passwd"),
        (["schedule", "--at", "07:00", "--id", "not-a-uuid"], "not-a-uuid"),
        (["schedule", "--at", "07:00", "--title", String(repeating: "x", count: 201)], "title"),
        (["schedule", "--at", "07:00", "--volume", "150%"], "150%"),
        (["schedule", "--at", "07:00", "--fade", "46m"], "46m"),
        (["wake", "6F0C", "--fade", "soon"], "soon"),
        (["wake", "6F0C", "--volume", "loud"], "loud"),
        (["wake", "6F0C", "--light", "2h"], "2h"),
        (["show", "xyz!"], "xyz!"),
        (["cancel", ""], "\"\""),
        (["auth", "grant", "no-such-user-here"], "no-such-user-here"),
        (["list", "--bogus"], "--bogus"),
        (["--socket", "/run/a.sock", "list", "--socket", "/run/b.sock"], "--socket is given twice, as \"/run/a.sock\" and \"/run/b.sock\""),
        (["list", "--socket", "/run/a.sock", "--socket", "/run/b.sock"], "--socket is given twice"),
        (["--socket", "", "list"], "invalid socket path"),
        (["--socket"], "--socket"),
        (["frobnicate"], "frobnicate"),
    ]

    @Test(arguments: badArguments)
    func badArgumentsGiveOneLineNamingTheValueAndStatus64(_ arguments: [String], _ named: String) async throws {
        let result = try await ChildProcess.run(
            ChildProcess.product("alarmctl"), arguments, environment: ["ALARMD_SOCKET": "/nonexistent/alarmd.sock"])
        #expect(result.exitStatus == 64, "stderr: \(result.standardError)")
        #expect(result.standardOutput.isEmpty)
        let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(lines.count == 1, "stderr: \(result.standardError)")
        #expect(result.standardError.hasPrefix("alarmctl: "))
        #expect(result.standardError.contains(named), "stderr does not name \(named): \(result.standardError)")
    }

    static let daemonCommands: [[String]] = [
        ["list"], ["list", "--json"], ["show", "6F0C"], ["stop", "6F0C"], ["timer", "5m"],
        ["disable", "6F0C"], ["enable", "6F0C"], ["skip", "6F0C"], ["wake", "6F0C", "--fade", "20m"],
        ["schedule", "--at", "07:00"], ["watch"], ["auth", "status"], ["status"], ["history"],
    ]

    @Test(arguments: daemonCommands)
    func withoutTheDaemonEveryCommandExits69WithAHint(_ arguments: [String]) async throws {
        let directory = try TemporaryDirectory()
        let socket = directory.path + "/control.sock"
        let result = try await ChildProcess.run(ChildProcess.product("alarmctl"), arguments, environment: ["ALARMD_SOCKET": socket])
        #expect(result.exitStatus == 69)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError == "alarmctl: cannot connect to alarmd at \(socket): No such file or directory; is alarmd running? (systemctl status alarmd)\n")
    }

    @Test(arguments: [["--socket", "SOCKET", "show", "6F0C"], ["show", "6F0C", "--socket", "SOCKET"], ["--socket", "SOCKET", "auth", "grant", "root"]])
    func theSocketBeforeOrAfterTheCommandIsTheOneTried(_ arguments: [String]) async throws {
        let directory = try TemporaryDirectory()
        let socket = directory.path + "/given.sock"
        let result = try await ChildProcess.run(
            ChildProcess.product("alarmctl"), arguments.map { $0 == "SOCKET" ? socket : $0 },
            environment: ["ALARMD_SOCKET": directory.path + "/environment.sock"])
        #expect(result.exitStatus == 69)
        #expect(result.standardError.hasPrefix("alarmctl: cannot connect to alarmd at \(socket): "), "\(result.standardError)")
    }

    @Test func aSocketNobodyListensOnIsAlsoNotRunning() async throws {
        let directory = try TemporaryDirectory()
        let socket = directory.path + "/control.sock"
        // What a daemon killed with SIGKILL leaves behind: the socket file, nobody listening.
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in socket.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        close(descriptor)
        #expect(bound == 0)
        let result = try await ChildProcess.run(ChildProcess.product("alarmctl"), ["list", "--socket", socket])
        #expect(result.exitStatus == 69)
        #expect(result.standardError == "alarmctl: cannot connect to alarmd at \(socket): Connection refused; is alarmd running? (systemctl status alarmd)\n")
    }

    @Test func helpListsEveryCommand() async throws {
        let result = try await ChildProcess.run(ChildProcess.product("alarmctl"), ["--help"])
        #expect(result.exitStatus == 0)
        for command in [
            "schedule", "timer", "list", "show", "cancel", "stop", "snooze", "pause", "resume", "disable", "enable", "skip",
            "wake", "watch", "auth", "status", "history", "preview", "web",
        ] {
            #expect(result.standardOutput.contains("  \(command) "), "help does not list \(command)")
        }
    }
}
