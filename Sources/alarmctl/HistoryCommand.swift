import AlarmClient
import AlarmModel
import AlarmProtocol
import AlarmTime
import ArgumentParser
import FoundationEssentials
import LinuxSupport

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show what your alarms did: rang, snoozed, stopped, missed, auto-silenced.",
        discussion: """
            Oldest first: the local time, the kind, the id's first 8 characters, the title and, \
            for an alarm that rang late or was missed, why (the clock was set across its time, or \
            was off). alarmd keeps the latest 500 entries. --all (administrators) shows every \
            user's, with an OWNER column. --json prints {"version":1,"entries":[{"date":INSTANT,\
            "kind":KIND,"id":ID,"owner":UID,"title":TITLE}]}, KIND being rang, snoozed, stopped, \
            missed, autoSilenced, disabled, enabled, skipped or soundFailed (its own sound could not \
            play and the built-in tone rang; "detail" names the file); a late rang has "lateBySeconds", \
            and a late rang or a missed has "reason" when known: clockSet or notRunning.
            """
    )

    @Flag(help: "Print JSON (a stable shape for scripts).")
    var json = false

    @Flag(help: "Every user's history (administrators only).")
    var all = false

    @OptionGroup var connection: SocketOptions

    func run() async throws {
        let session = try await connection.connect()
        defer { session.close() }
        let entries = try await session.call { try await $0.history(all: all) }
        let zone = TimeText.localZone()
        if json {
            let output = entries.map {
                JSONOutput.History.Entry(
                    date: ISO8601.format($0.date, in: zone), kind: $0.kind.rawValue, id: $0.alarmID.uuidString,
                    owner: $0.owner.rawValue, title: $0.title, lateBySeconds: $0.lateBy, reason: $0.reason?.rawValue,
                    detail: $0.detail)
            }
            print(JSONOutput.document(JSONOutput.History(entries: output)), terminator: "")
            return
        }
        guard !entries.isEmpty else {
            print("No history yet.")
            return
        }
        let explained = entries.contains { $0.explanation != nil }
        var header = all ? ["TIME", "KIND", "ID", "OWNER", "TITLE"] : ["TIME", "KIND", "ID", "TITLE"]
        if explained { header.append("WHY") }
        var table = TextTable(header: header)
        for entry in entries {
            var row = [TimeText.dateAndTime(entry.date, in: zone), Self.kindName(entry.kind), String(entry.alarmID.uuidString.prefix(8))]
            if all { row.append(UserNames.short(entry.owner.rawValue)) }
            row.append(entry.title)
            if explained { row.append(entry.explanation ?? "") }
            table.append(row)
        }
        print(table.text, terminator: "")
    }

    static func kindName(_ kind: HistoryEntry.Kind) -> String {
        switch kind {
        case .rang: "rang"
        case .snoozed: "snoozed"
        case .stopped: "stopped"
        case .autoSilenced: "auto-silenced"
        case .missed: "missed"
        case .disabled: "disabled"
        case .enabled: "enabled"
        case .skipped: "skipped"
        case .soundFailed: "sound failed"
        }
    }
}
