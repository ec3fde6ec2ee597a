import AlarmClient
import AlarmModel
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
            startedAt, clockTrusted, timeSource (ntp, rtc, phone, restored or unset: where the \
            clock's time came from) and timeConfirmedAt (when that source last vouched for it), timeZone, scope (whose alarms are counted: "client", yours, or \
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

    /// Where the time came from, and how long ago it was last confirmed.
    static func timeSourceText(_ source: TimeSource, confirmedAt: Date?, now: Date) -> String {
        let ago = confirmedAt.map { TimeText.duration(max(0, now.timeIntervalSince($0))) + " ago" }
        switch source {
        case .ntp: return "NTP" + (ago.map { ", last synchronised \($0)" } ?? "")
        case .rtc: return "the real-time clock, read at boot" + (ago.map { " (\($0))" } ?? "")
        case .phone: return "a phone" + (ago.map { ", set \($0)" } ?? "")
        case .restored:
            guard let ago else { return "NOT CONFIRMED: no NTP synchronisation, real-time clock or phone has vouched for it" }
            return "NOT CONFIRMED: restored from the time saved at the last shutdown (saved \(ago)); behind by as long as the power was off"
        case .unset: return "NOT SET"
        }
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
        if let source = report.timeSource {
            table.append(["Time:", Self.timeSourceText(source, confirmedAt: report.timeConfirmedAt, now: now)])
        }
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
