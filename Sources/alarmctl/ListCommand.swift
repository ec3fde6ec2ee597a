import AlarmKitCore
import AlarmTime
import ArgumentParser
import FoundationEssentials
import LinuxSupport

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List your alarms.",
        discussion: """
            Columns: ID (the first 8 characters; any unique prefix names an alarm), STATE \
            (scheduled, countdown, paused, alerting, or disabled), WHEN (when it next rings, in \
            local time, with "(skips DAY)" if it skips a day; the time left of a countdown; - while \
            disabled), REPEAT (once, daily, weekdays, weekends, mon,wed,... or \
            timer) and TITLE. --all (administrators) lists every user's alarms with an OWNER \
            column (ids are each user's own: two users' alarms may have the same). --json prints {"version":1,"alarms":[...]}, each alarm as `show --json` \
            describes, for scripts.
            """
    )

    @Flag(help: "Print JSON (a stable shape for scripts).")
    var json = false

    @Flag(help: "Every user's alarms (administrators only).")
    var all = false

    @OptionGroup var connection: SocketOptions

    func run() async throws {
        let session = try await connection.connect()
        defer { session.close() }
        let views = try await session.alarms(all: all)
        let now = Date()
        let zone = TimeText.localZone()
        if json {
            let scale = await session.volumeScale()
            print(JSONOutput.document(JSONOutput.AlarmList(alarms: views.map { AlarmJSON($0, now: now, zone: zone, volumeScale: scale) })), terminator: "")
            return
        }
        guard !views.isEmpty else {
            print(all ? "No alarms." : "You have no alarms.")
            return
        }
        print(Self.table(views, owners: all, now: now, zone: zone), terminator: "")
    }

    static func table(_ views: [AlarmView], owners: Bool, now: Date, zone: TimeZoneRules) -> String {
        var table = TextTable(header: owners
            ? ["ID", "OWNER", "STATE", "WHEN", "REPEAT", "TITLE"] : ["ID", "STATE", "WHEN", "REPEAT", "TITLE"])
        for view in views {
            var row = [String(view.id.uuidString.prefix(8))]
            if owners { row.append(UserNames.short(view.owner)) }
            row += [view.stateText, when(view, now: now, zone: zone), TimeText.repetition(of: view.alarm), view.title ?? "-"]
            table.append(row)
        }
        return table.text
    }

    /// The WHEN column.
    static func when(_ view: AlarmView, now: Date, zone: TimeZoneRules) -> String {
        switch view.state {
        case .alerting:
            return "ringing now"
        case .countdown, .paused:
            guard let remaining = view.remaining(now: now) else { return view.state == .paused ? "paused" : "counting down" }
            return "\(TimeText.duration(remaining)) left"
        case .scheduled:
            if view.enabled == false { return "-" }
            guard let next = view.nextAlert(now: now, zone: zone) else { return "clock not set" }
            return TimeText.dayAndTime(next, in: zone) + (view.skippedDate.map { " (skips \(TimeText.day($0)))" } ?? "")
        }
    }
}
