import AlarmClient
import AlarmProtocol
import AlarmTime
import ArgumentParser
import FoundationEssentials

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the daemon's state: version, clock, alarms and each hardware part.",
        discussion: """
            A part is ok, starting or fault (with the cause). The alarm figures are your own \
            alarms, or every user's for administrators (root and the admin group). --json prints \
            alarmd's status report as it sends it (instants as seconds since 1970): version, board, \
            startedAt, clockTrusted, timeZone, scope (whose alarms are counted: "client", yours, or \
            "device", every user's), alarms, alerting, nextAlarm and parts ([{name, state, detail}]).
            """
    )

    @Flag(help: "Print alarmd's report as JSON.")
    var json = false

    @OptionGroup var connection: SocketOptions

    func run() async throws {
        let session = try await connection.connect()
        defer { session.close() }
        if json {
            // As alarmd sends it: the fields a newer daemon adds are passed on too.
            print(JSONOutput.document(try await session.call { try await $0.answerAsSent(.status) }), terminator: "")
            return
        }
        let report = try await session.call { try await $0.status() }
        print(Self.text(report, now: Date(), zone: TimeText.localZone()), terminator: "")
    }

    static func text(_ report: StatusReport, now: Date, zone: TimeZoneRules) -> String {
        let version = TerminalText.escaped(report.version)
        let board = TerminalText.escaped(report.board)
        var text = "alarmd \(version) on board \(board), up \(TimeText.duration(now.timeIntervalSince(report.startedAt)))"
        text += " (since \(TimeText.dateAndTime(report.startedAt, in: zone)))\n"
        var table = TextTable(header: [
            "Clock:", report.clockTrusted
                ? "trusted, time zone \(report.timeZone)"
                : "NOT SET: waiting for the time; no alarm rings until it is (time zone \(report.timeZone))",
        ])
        var alarms = "\(report.alarms), \(report.alerting) ringing"
        switch report.scope {
        case .client: alarms += " (yours)"
        case .device: alarms += " (all users)"
        }
        if let next = report.nextAlarm { alarms += "; next \(TimeText.dayAndTime(next, in: zone))" }
        table.append(["Alarms:", alarms])
        text += table.text + "Parts:\n"
        var parts = TextTable(header: ["", "PART", "STATE", "DETAIL"])
        for part in report.parts { parts.append(["", part.name, part.state, part.detail ?? ""]) }
        return text + parts.text
    }
}
