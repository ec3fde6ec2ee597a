import AlarmClient
import AlarmControl
import AlarmModel
import AlarmProtocol
import AlarmEngine
import AlarmKitCore
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Glibc
import Testing

/// `alarmctl auth`, `status`, `watch` and `history` against a real alarmd on the simulated board.
@Suite(.timeLimit(.minutes(5)))
struct DaemonCommandTests {
    @Test func rootIsAuthorizedAndAdministersOthers() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        let status = try await daemon.alarmctl(["auth", "status"])
        #expect(status.exitStatus == 0)
        #expect(status.standardOutput == "authorized\n")

        // Already decided: no prompt, so no waiting message.
        let request = try await daemon.alarmctl(["auth", "request"])
        #expect(request.exitStatus == 0)
        #expect(request.standardOutput == "authorized\n")
        #expect(request.standardError.isEmpty)

        let granted = try await daemon.alarmctl(["auth", "grant", "4242"])
        #expect(granted.exitStatus == 0, "stderr: \(granted.standardError)")
        #expect(granted.standardOutput == "uid 4242: authorized\n")
        let revoked = try await daemon.alarmctl(["auth", "revoke", "daemon"])
        #expect(revoked.exitStatus == 0, "stderr: \(revoked.standardError)")
        #expect(revoked.standardOutput == "daemon (uid 1): denied\n")
        let all = Output.lines(try await daemon.alarmctl(["auth", "status", "--all"]).standardOutput).map { $0.split(separator: " ") }
        #expect(all.first == ["UID", "USER", "STATE"])
        #expect(all.contains(["1", "daemon", "denied"]))
        #expect(all.contains(["4242", "-", "authorized"]))

        let administrator = try await daemon.alarmctl(["auth", "revoke", "root"])
        #expect(administrator.exitStatus == 1)
        #expect(administrator.standardError == "alarmctl: uid 0 is an administrator and always authorized\n")
    }

    @Test func statusShowsTheDaemonTheClockAndEveryPart() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        let text = try await daemon.alarmctl(["status"])
        #expect(text.exitStatus == 0, "stderr: \(text.standardError)")
        let lines = Output.lines(text.standardOutput)
        #expect(lines.first?.hasPrefix("alarmd ") == true)
        #expect(lines.first?.contains("on board simulated, up ") == true)
        #expect(lines.contains("Clock:   trusted, time zone UTC"))
        #expect(lines.contains("Alarms:  0, 0 ringing (all users)"))
        // This machine's own clock: whatever the kernel and its clock files say of it.
        #expect(lines.contains { $0.hasPrefix("Time:    ") }, "\(lines)")
        for part in ["buttons", "led", "display", "sound"] {
            #expect(lines.contains { $0.split(separator: " ").prefix(2) == [Substring(part), "ok"] }, "no line for \(part)")
        }

        let json = try Output.json(try await daemon.alarmctl(["status", "--json"]).standardOutput)
        #expect(json["clockTrusted"] == .bool(true))
        #expect(json["scope"] == .string("device"))
        #expect(json["board"] == .string("simulated"))
        #expect(TimeSource.allCases.map { JSONValue.string($0.rawValue) }.contains(json["timeSource"] ?? .null))
        #expect(Output.array(json["parts"]).compactMap { $0["name"]?.stringValue } == ["buttons", "led", "display", "sound", "light", "storage"])
        #expect(Output.array(json["parts"]).allSatisfy { $0["state"] == .string("ok") })
    }

    @Test func watchPrintsEachChangeAndHistoryRecordsThem() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        let records = try await daemon.reportsRecords()
        let id = AlarmCommandTests.id(9, prefix: "EEEE")
        let watch = try RunningChild(
            ChildProcess.product("alarmctl"), ["watch", "--socket", daemon.socket], standardErrorPath: daemon.directory.path + "/watch.err")
        defer {
            watch.kill(SIGKILL)
            watch.wait()
        }
        let timer = try await daemon.alarmctl(["timer", "1s", "--title", "Egg", "--id", id])
        #expect(timer.exitStatus == 0, "stderr: \(timer.standardError)")

        // Whether watch subscribed before or after the timer started, its first line is the countdown.
        func fields(_ line: String?) -> [String] { line?.split(separator: " ").map(String.init) ?? [] }
        let counting = fields(try watch.readLine())
        #expect(counting.dropFirst().prefix(2) == ["EEEE0009", "countdown"])
        #expect(counting.count == (records ? 4 : 3))
        #expect(counting.first?.count == 8)  // HH:MM:SS
        let alerting = fields(try watch.readLine())
        #expect(alerting.dropFirst().prefix(2) == ["EEEE0009", "alerting"])

        let stopped = try await daemon.alarmctl(["stop", "EEEE0009"])
        #expect(stopped.exitStatus == 0, "stderr: \(stopped.standardError)")
        let gone = fields(try watch.readLine())
        #expect(gone.dropFirst().prefix(2) == ["EEEE0009", "gone"])

        watch.kill(SIGINT)
        #expect(try watch.readRemainingLines().isEmpty)
        let end = watch.wait()
        #expect(end.exitStatus == 0 && end.signal == nil, "watch \(end)")

        let history = try await daemon.alarmctl(["history"])
        #expect(history.exitStatus == 0, "stderr: \(history.standardError)")
        let rows = Output.lines(history.standardOutput).map { $0.split(separator: " ").map(String.init) }
        #expect(rows.first == ["TIME", "KIND", "ID", "TITLE"])
        #expect(rows.dropFirst().map { Array($0.dropFirst(2)) } == [["rang", "EEEE0009", "Egg"], ["stopped", "EEEE0009", "Egg"]])

        let json = try Output.json(try await daemon.alarmctl(["history", "--json"]).standardOutput)
        #expect(Output.keys(json) == ["entries", "version"])
        let entries = Output.array(json["entries"])
        #expect(entries.compactMap { $0["kind"]?.stringValue } == ["rang", "stopped"])
        for entry in entries {
            #expect(Output.keys(entry) == ["date", "id", "kind", "owner", "title"])
            #expect(entry["id"] == .string(id))
            #expect(entry["title"] == .string("Egg"))
            #expect(entry["date"]?.stringValue?.count == 25)  // 2026-11-21T09:43:36+00:00
        }

        let everyone = try await daemon.alarmctl(["history", "--all"])
        #expect(Output.lines(everyone.standardOutput).first?.split(separator: " ") == ["TIME", "KIND", "ID", "OWNER", "TITLE"])
    }

    @Test func watchJSONIsOneObjectPerLineAndSIGTERMEndsItCleanly() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        let id = AlarmCommandTests.id(1, prefix: "DDDD")
        _ = try await daemon.alarmctl(["schedule", "--at", "09:15", "--id", id])
        let watch = try RunningChild(
            ChildProcess.product("alarmctl"), ["watch", "--json", "--socket", daemon.socket],
            standardErrorPath: daemon.directory.path + "/watch.err")
        defer {
            watch.kill(SIGKILL)
            watch.wait()
        }
        let line = try Output.json(try watch.readLine() ?? "")
        #expect(Output.keys(line) == ["id", "state", "time", "title", "version"])
        #expect(line["id"] == .string(id))
        #expect(line["state"] == .string("scheduled"))
        watch.kill(SIGTERM)
        let end = watch.wait()
        #expect(end.exitStatus == 0 && end.signal == nil, "watch \(end)")
    }

    static let canSwitchUser = geteuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0

    @Test(.enabled(if: canSwitchUser, "needs root and setpriv to run alarmctl as another user"))
    func aUserTheSocketRefusesGetsStatus77WithAHint() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        // The directory is searchable; the socket itself (0660, root's group) refuses nobody.
        chmod(daemon.directory.path, 0o711)
        let result = try await ChildProcess.run(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", ChildProcess.product("alarmctl"), "list"],
            environment: ["ALARMD_SOCKET": daemon.socket])
        #expect(result.exitStatus == 77)
        #expect(result.standardOutput.isEmpty)
        // The socket's group is root's here; on a device it is alarmd's.
        var status = stat()
        #expect(stat(daemon.socket, &status) == 0)
        let group = try #require(getgrgid(status.st_gid).map { String(cString: $0.pointee.gr_name) })
        #expect(result.standardError == """
            alarmctl: permission denied on \(daemon.socket); add yourself to its group \(group): \
            sudo usermod -aG \(group) $USER, then log in again (or run newgrp \(group))

            """)
    }

    @Test(.enabled(if: canSwitchUser, "needs root and setpriv to run alarmctl as another user"))
    func anotherUserIsRefusedUntilGrantedAndSeesOnlyTheirOwnAlarms() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        daemon.openToEveryone()
        let asNobody = daemon.alarmctlAsNobody
        #expect(try await asNobody(["auth", "status"]).standardOutput == "notDetermined\n")
        _ = try await daemon.alarmctl(["auth", "revoke", "nobody"])
        let refused = try await asNobody(["timer", "5m"])
        #expect(refused.exitStatus == 1)
        #expect(refused.standardError == "alarmctl: not authorized to set alarms (authorization is denied)\n")

        _ = try await daemon.alarmctl(["auth", "grant", "65534"])
        _ = try await daemon.alarmctl(["timer", "5m", "--id", AlarmCommandTests.id(1, prefix: "CCCC")])
        let own = try await asNobody(["timer", "5m", "--id", AlarmCommandTests.id(2, prefix: "CCCC")])
        #expect(own.exitStatus == 0, "stderr: \(own.standardError)")
        let listed = Output.array(try Output.json(try await asNobody(["list", "--json"]).standardOutput)["alarms"])
        #expect(listed.map { $0["id"] } == [.string(AlarmCommandTests.id(2, prefix: "CCCC"))])
        #expect(listed.map { $0["owner"] } == [.integer(65534)])
        // Root's alarm is not nobody's to stop, whatever prefix is typed.
        let others = try await asNobody(["cancel", "CCCC0001"])
        #expect(others.exitStatus == 1)
        #expect(others.standardError == "alarmctl: no alarm of yours has an id starting with CCCC0001\n")
        let everyone = try await asNobody(["list", "--all"])
        #expect(everyone.exitStatus == 1)
        #expect(Output.lines(everyone.standardError).count == 1)
        #expect(everyone.standardError.hasPrefix("alarmctl: only root and the admin group see everyone's alarms"))

        // `alarmRecords` for one id (what `schedule` prints from) answers it only to its owner, or
        // to an administrator who asks for everyone's.
        let root = ControlClient(path: daemon.socket)
        defer { root.close() }
        func records(_ parameters: [String: JSONValue]) async throws -> [String] {
            try await root.request("alarmRecords", parameters: parameters, as: [AlarmRecord].self).map(\.id.uuidString)
        }
        let nobodys = AlarmCommandTests.id(2, prefix: "CCCC"), roots = AlarmCommandTests.id(1, prefix: "CCCC")
        #expect(try await records(["id": .string(nobodys)]) == [])
        #expect(try await records(["id": .string(nobodys), "all": .bool(true)]) == [nobodys])
        #expect(try await records(["id": .string(roots)]) == [roots])
        #expect(try await records([:]) == [roots])
        #expect(try await records(["id": .string(AlarmCommandTests.id(9, prefix: "CCCC")), "all": .bool(true)]) == [])

        // Ids are each user's own: nobody may use root's for an alarm of its own.
        let same = try await asNobody(["timer", "9m", "--id", roots])
        #expect(same.exitStatus == 0, "stderr: \(same.standardError)")
        #expect(Output.lines(try await asNobody(["list"]).standardOutput).count == 3)
        let all = Output.array(try Output.json(try await daemon.alarmctl(["list", "--all", "--json"]).standardOutput)["alarms"])
        #expect(all.map { $0["id"] } == [.string(roots), .string(nobodys), .string(roots)])
        #expect(all.map { $0["owner"] } == [.integer(0), .integer(65534), .integer(65534)])
        #expect(try await records(["id": .string(roots), "all": .bool(true)]) == [roots, roots])
        let roots0 = try await root.request("alarmRecords", parameters: ["id": .string(roots)], as: [AlarmRecord].self)
        #expect(roots0.map(\.owner) == [ClientID(rawValue: 0)])
        // Root cancels its own; nobody's alarm with that id stays.
        #expect(try await daemon.alarmctl(["cancel", "CCCC0001"]).exitStatus == 0)
        let left = Output.array(try Output.json(try await daemon.alarmctl(["list", "--all", "--json"]).standardOutput)["alarms"])
        #expect(left.map { $0["owner"] } == [.integer(65534), .integer(65534)])
        #expect(left.map { $0["id"] } == [.string(nobodys), .string(roots)])
    }

    @Test(.enabled(if: canSwitchUser, "needs root and setpriv to run alarmctl as another user"))
    func statusGivesAUserOnlyTheirOwnAlarmFiguresAndAnAdministratorTheDevices() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        daemon.openToEveryone()
        let asNobody = daemon.alarmctlAsNobody
        _ = try await daemon.alarmctl(["auth", "grant", "65534"])
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        // Root's: one ringing already (due a minute ago, within the grace period), and one due
        // before nobody's only alarm.
        let root = ControlClient(path: daemon.socket)
        defer { root.close() }
        let ringing = try await root.schedule(id: Alarm.ID(), definition: AlarmDefinition(
            schedule: .fixed(now.addingTimeInterval(-60)), countdownDuration: nil,
            presentation: AlarmPresentation(alert: .init(title: "Now"))))
        #expect(ringing.state == .alerting)
        let rootsNext = now.addingTimeInterval(3600)
        #expect(try await daemon.alarmctl(["schedule", "--on", ISO8601.format(rootsNext, in: .utc)]).exitStatus == 0)
        let nobodysNext = now.addingTimeInterval(7200)
        let scheduled = try await asNobody(["schedule", "--on", ISO8601.format(nobodysNext, in: .utc)])
        #expect(scheduled.exitStatus == 0, "stderr: \(scheduled.standardError)")

        let own = try Output.json(try await asNobody(["status", "--json"]).standardOutput)
        #expect(own["scope"] == .string("client"))
        #expect(own["alarms"] == .integer(1))
        #expect(own["alerting"] == .integer(0))
        #expect(own["nextAlarm"] == .integer(Int64(nobodysNext.timeIntervalSince1970)))
        // The device's parts and clock are everyone's to see.
        #expect(own["clockTrusted"] == .bool(true))
        #expect(Output.array(own["parts"]).count == 6)
        let text = Output.lines(try await asNobody(["status"]).standardOutput)
        #expect(text.contains { $0.hasPrefix("Alarms:  1, 0 ringing (yours); next ") }, "\(text)")

        let device = try Output.json(try await daemon.alarmctl(["status", "--json"]).standardOutput)
        #expect(device["scope"] == .string("device"))
        #expect(device["alarms"] == .integer(3))
        #expect(device["alerting"] == .integer(1))
        #expect(device["nextAlarm"] == .integer(Int64(rootsNext.timeIntervalSince1970)))

        // Root's alarm rang; that is in root's history, not in nobody's.
        let history = try Output.json(try await asNobody(["history", "--json"]).standardOutput)
        #expect(Output.array(history["entries"]).isEmpty)
        let rootsHistory = try Output.json(try await daemon.alarmctl(["history", "--json"]).standardOutput)
        #expect(Output.array(rootsHistory["entries"]).map { $0["kind"] } == [.string("rang")])
    }
}
