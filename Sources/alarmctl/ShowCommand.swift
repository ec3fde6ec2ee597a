import AlarmKitCore
import AlarmModel
import AlarmTime
import ArgumentParser
import FoundationEssentials
import LinuxSupport

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one of your alarms in full.",
        discussion: """
            ID is the alarm's id or a prefix of it that is unique among your alarms. \
            --json prints {"version":1,"alarm":ALARM} with ALARM's fields: id, owner (uid), state, \
            title (null if alarmd does not report it), schedule (null for a timer; \
            {"type":"fixed","at":INSTANT} or {"type":"relative","time":"HH:MM","repeat":[days]}, \
            [] meaning once), countdown (null or {"preAlert":SECONDS,"postAlert":SECONDS}, either \
            null), nextAlert (INSTANT or null), remaining (whole seconds of a countdown, or null), \
            sound and secondary (null if not reported), enabled (false once disabled; null if not \
            reported), skippedDate (the local day it skips, YYYY-MM-DD, or null) and wake \
            ({"fadeSeconds":SECONDS,"volumePercent":PERCENT,"lightLeadSeconds":SECONDS}, each null \
            for the household's; \
            null if not reported). Instants are \
            ISO 8601 with the local offset.
            """
    )

    @Argument(help: ArgumentHelp("The alarm's id or a unique prefix of it.", valueName: "ID"))
    var id: String

    @Flag(help: "Print JSON (a stable shape for scripts).")
    var json = false

    @OptionGroup var connection: SocketOptions

    func run() async throws {
        let key = try AlarmIDPrefix(id)
        let session = try await connection.connect()
        defer { session.close() }
        let view = try await session.resolve(key)
        let now = Date()
        let zone = TimeText.localZone()
        let scale = await session.volumeScale()
        if json {
            print(JSONOutput.document(JSONOutput.OneAlarm(alarm: AlarmJSON(view, now: now, zone: zone, volumeScale: scale))), terminator: "")
            return
        }
        print(Self.details(view, now: now, zone: zone, volumeScale: scale), terminator: "")
    }

    static func details(_ view: AlarmView, now: Date, zone: TimeZoneRules, volumeScale: ClosedRange<Double> = AlarmWake.volumeRange) -> String {
        var lines: [(String, String)] = [
            ("ID", view.id.uuidString),
            ("Title", view.title ?? "(not reported by alarmd)"),
            ("State", view.stateText),
            ("Owner", UserNames.describe(view.owner)),
            ("Schedule", schedule(of: view.alarm, zone: zone)),
            ("When", ListCommand.when(view, now: now, zone: zone)),
        ]
        if let next = view.nextAlert(now: now, zone: zone) {
            lines.append(("Next alert", ISO8601.format(next, in: zone)))
        }
        if let skipped = view.skippedDate {
            lines.append(("Skips", TimeText.day(skipped)))
        }
        let durations = view.alarm.countdownDuration
        if view.alarm.schedule != nil {
            lines.append(("Countdown", durations?.preAlert.map { "\(TimeText.length($0)) before it rings" } ?? "none"))
            lines.append(("Snooze", durations?.postAlert.map(TimeText.length) ?? "none"))
        } else {
            lines.append(("Length", durations?.preAlert.map(TimeText.length) ?? "-"))
            lines.append(("Repeat", durations?.postAlert.map(TimeText.length) ?? "-"))
        }
        if let remaining = view.remaining(now: now) {
            lines.append(("Remaining", TimeText.duration(remaining)))
        }
        if let definition = view.definition {
            lines.append(("Sound", view.sound ?? "default"))
            lines.append(("Wake", WakeOptions.describe(view.record?.wake, scale: volumeScale)))
            var secondary = view.secondary ?? "none"
            if let button = definition.presentation.alert.secondaryButton { secondary += " (button \"\(button.text)\")" }
            if let intent = definition.secondaryIntent { secondary += ", intent \(intent.name)" }
            lines.append(("Secondary", secondary))
            if let intent = definition.stopIntent { lines.append(("Stop intent", intent.name)) }
        }
        if let record = view.record {
            lines.append(("Created", TimeText.dateAndTime(record.createdAt, in: zone)))
        }
        // A fixed key column, so that scripts and people find values at the same place.
        return lines.map { key, value in
            key + ":" + String(repeating: " ", count: max(1, keyWidth - key.count - 1)) + TerminalText.escaped(value) + "\n"
        }.joined()
    }

    /// The width of the key column, "Stop intent: " included.
    static let keyWidth = 13

    static func schedule(of alarm: Alarm, zone: TimeZoneRules) -> String {
        switch alarm.schedule {
        case nil:
            return "timer"
        case .fixed(let date):
            return "once at \(ISO8601.format(date, in: zone))"
        case .relative(let relative):
            let time = CivilTime(hour: relative.time.hour, minute: relative.time.minute).map(TimeText.hoursAndMinutes) ?? "?"
            guard case .weekly(let days) = relative.repeats else { return "once at \(time), local time" }
            return "\(time) local time, weekly on \(TimeText.weekdays(days).joined(separator: ","))"
        }
    }
}
