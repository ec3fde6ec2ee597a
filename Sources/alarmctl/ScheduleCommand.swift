import AlarmKitCore
import AlarmTime
import ArgumentParser
import FoundationEssentials

struct ScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Schedule an alarm.",
        discussion: """
            --at HH:MM (7:30, 07:30, or 12-hour as 7:30am or 7pm) rings at that wall time in the \
            device's zone: once (the next time it comes) or, with --repeat, weekly on those days: \
            mon,tue or English names, ranges such as mon-fri (fri-mon wraps over the weekend), \
            weekdays, weekends or daily, as preview takes them. \
            It follows the zone and daylight saving. --on INSTANT rings once at one absolute \
            instant: ISO 8601 with Z or an offset, or a local YYYY-MM-DDTHH:MM; it keeps that \
            instant if the zone changes. \
            --secondary decides what SNOOZE does while it rings: snooze (the default) counts down \
            --snooze (default 9m) and rings again; custom shows an "Open" button that runs the \
            intent "alarmctl.custom" and stops the alarm; none leaves SNOOZE without an action. \
            --snooze is AlarmKit's postAlert countdown, also used by `alarmctl snooze`. \
            --countdown is AlarmKit's preAlert: the alarm counts down for that long before each \
            time it rings (pause and resume work during it). \
            --stop-intent NAME delivers the intent NAME to you when STOP is pressed at the device: \
            `alarmctl watch --json` prints it, so a script can react. \
            --sound names a sound file in the device's sounds directory (WAV, FLAC, Ogg Vorbis, Opus or \
            MP3; `alarmctl sounds` lists them; default: the built-in tone): one that cannot be \
            decoded is refused then, with the reason. \
            --fade and --volume set how this alarm wakes (see `alarmctl wake`). \
            A user's first alarm asks the person at the device for permission first (up to 60 s; \
            see `alarmctl auth`). Prints the new alarm's id and when it rings (--json: the alarm \
            as `show --json`).
            """
    )

    @Option(name: .customLong("at"), help: ArgumentHelp("Ring at this wall time, HH:MM (24-hour) or 7:30am.", valueName: "HH:MM"))
    var time: String?

    @Option(name: .customLong("repeat"), help: ArgumentHelp(
        "With --at: repeat weekly on these days (mon,tue, monday, mon-fri, weekdays, weekends, daily).", valueName: "DAYS"))
    var days: String?

    @Option(name: .customLong("on"), help: ArgumentHelp(
        "Ring once at this instant (2026-11-23T07:00:00+01:00, or 2026-11-23T07:00 local).", valueName: "INSTANT"))
    var instant: String?

    @Option(help: "The title shown while it rings.")
    var title = "Alarm"

    @Option(help: ArgumentHelp("How long a snooze lasts (postAlert; default 9m with --secondary snooze).", valueName: "DURATION"))
    var snooze: String?

    @Option(help: ArgumentHelp("Count down for this long before it rings (preAlert).", valueName: "DURATION"))
    var countdown: String?

    @Option(help: ArgumentHelp("A sound file in the device's sounds directory.", valueName: "NAME"))
    var sound: String?

    @Option(help: ArgumentHelp("What SNOOZE does while it rings: snooze, custom or none.", valueName: "snooze|custom|none"))
    var secondary = "snooze"

    @Option(help: ArgumentHelp("The intent to deliver to you when STOP is pressed at the device.", valueName: "NAME"))
    var stopIntent: String?

    @Option(help: ArgumentHelp("Use this id (a UUID) instead of a new one.", valueName: "UUID"))
    var id: String?

    @Flag(help: "Print the alarm as JSON.")
    var json = false

    @OptionGroup var wake: WakeOptions

    @OptionGroup var connection: SocketOptions

    /// The intent a `--secondary custom` button runs.
    static let customIntent = "alarmctl.custom"
    /// The snooze length with `--secondary snooze` and no `--snooze`.
    static let defaultSnooze: TimeInterval = 9 * 60

    func run() async throws {
        let zone = TimeText.localZone()
        let definition = try makeDefinition(now: Date(), zone: zone)
        let alarmID = try ScheduleInput.parse(id)
        // Checked before anything is scheduled: a bad --volume never leaves a half-made alarm.
        let ownWake = wake.isEmpty ? nil : try wake.applied(to: nil)
        let session = try await connection.connect()
        defer { session.close() }
        try await session.announceAuthorizationPrompt()
        // The percentage is the clock's (its card's range): read before anything is scheduled.
        let scaledWake = wake.volume == nil ? ownWake : try wake.applied(to: nil, scale: await session.volumeScale())
        let alarm = try await session.call { try await $0.schedule(id: alarmID, definition: definition) }
        if let scaledWake {
            try await session.call { try await $0.setWake(scaledWake, id: alarmID) }
        }
        try await ScheduledOutput.print(alarm, title: title, session: session, json: json, zone: zone)
    }

    /// The definition the options describe; a usage error names a bad or conflicting option.
    func makeDefinition(now: Date, zone: TimeZoneRules) throws -> AlarmDefinition {
        let schedule: Alarm.Schedule
        switch (time, instant) {
        case (let time?, nil):
            let wallTime = try Preview.parseTime(time)
            var repeats = Alarm.Schedule.Relative.Recurrence.never
            if let days {
                let chosen = try Preview.parseDays(days)
                repeats = .weekly(TimeText.weekOrder.filter(chosen.contains))
            }
            schedule = .relative(.init(time: .init(hour: wallTime.hour, minute: wallTime.minute), repeats: repeats))
        case (nil, let instant?):
            guard days == nil else { throw CommandFailure.usage("--repeat needs --at: --on \(instant) rings once") }
            guard let date = zone.instant(parsing: instant) else {
                throw CommandFailure.usage(
                    "invalid instant \"\(instant)\": expected ISO 8601 such as 2026-11-23T07:00:00+01:00, or 2026-11-23T07:00 local")
            }
            guard date > now else { throw CommandFailure.usage("instant \"\(instant)\" is in the past") }
            schedule = .fixed(date)
        case (nil, nil):
            throw CommandFailure.usage("missing --at HH:MM or --on INSTANT")
        case (let time?, let instant?):
            throw CommandFailure.usage("use either --at \(time) or --on \(instant), not both")
        }
        let preAlert = try countdown.map { try TimeText.duration($0, option: "--countdown") }
        var postAlert = try snooze.map { try TimeText.duration($0, option: "--snooze") }
        let alert: AlarmPresentation.Alert
        var secondaryIntent: AlarmIntent?
        switch secondary {
        case "snooze":
            alert = .init(title: title, stopButton: .stop, secondaryButton: .snooze, secondaryButtonBehavior: .countdown)
            postAlert = postAlert ?? Self.defaultSnooze
        case "custom":
            alert = .init(
                title: title, stopButton: .stop,
                secondaryButton: AlarmButton(text: "Open", textColor: .white, systemImageName: "arrow.up.right"),
                secondaryButtonBehavior: .custom)
            secondaryIntent = AlarmIntent(Self.customIntent)
        case "none":
            alert = .init(title: title, stopButton: .stop)
        default:
            throw CommandFailure.usage("invalid --secondary \"\(secondary)\": expected snooze, custom or none")
        }
        let durations = preAlert == nil && postAlert == nil ? nil : Alarm.CountdownDuration(preAlert: preAlert, postAlert: postAlert)
        let definition = AlarmDefinition(
            schedule: schedule, countdownDuration: durations,
            presentation: AlarmPresentation(
                alert: alert, countdown: .init(title: title), paused: .init(title: title, resumeButton: .resume)),
            stopIntent: stopIntent.map { AlarmIntent($0) }, secondaryIntent: secondaryIntent, sound: try ScheduleInput.sound(sound))
        try ScheduleInput.check(definition)
        return definition
    }
}

/// Reading `--id` and `--sound`, and checking a definition before it is sent.
enum ScheduleInput {
    static func parse(_ text: String?) throws -> Alarm.ID {
        guard let text else { return Alarm.ID() }
        guard let id = UUID(uuidString: text) else {
            throw CommandFailure.usage("invalid --id \"\(text)\": expected a UUID such as 6F0C1A2B-9D3E-4F5A-8B7C-0D1E2F3A4B5C")
        }
        return id
    }

    /// `--sound NAME`: a plain file name; `default` (or none) is the built-in tone.
    static func sound(_ name: String?) throws -> AlertSound {
        guard let name, name != "default" else { return .default }
        guard !name.isEmpty, !name.contains("/"), name != ".", name != "..", name.utf8.count <= 255 else {
            throw CommandFailure.usage("invalid --sound \"\(name)\": expected a file name in the device's sounds directory")
        }
        return .named(name)
    }

    /// What the daemon would refuse as invalid is the caller's input here: a usage error.
    static func check(_ definition: AlarmDefinition) throws {
        do {
            try definition.validate()
        } catch {
            throw CommandFailure.usage(error.description)
        }
    }
}

/// What `schedule` and `timer` print once the daemon has the alarm.
enum ScheduledOutput {
    static func print(_ alarm: Alarm, title: String, session: DaemonSession, json: Bool, zone: TimeZoneRules) async throws {
        let now = Date()
        var view = AlarmView(alarm: alarm, owner: session.hello.uid)
        if let record = try await session.records(all: false, id: alarm.id)?.first {
            view = AlarmView(record: record)
        }
        if json {
            Swift.print(JSONOutput.document(JSONOutput.OneAlarm(alarm: AlarmJSON(view, now: now, zone: zone, volumeScale: await session.volumeScale()))), terminator: "")
            return
        }
        var line = "\(alarm.schedule == nil ? "Started timer" : "Scheduled") \(alarm.id.uuidString) \"\(TerminalText.escaped(title))\""
        if let next = view.nextAlert(now: now, zone: zone) {
            line += alarm.schedule == nil
                ? ": rings at \(TimeText.timeOfDay(next, in: zone)) (in \(TimeText.duration(next.timeIntervalSince(now))))"
                : ": rings \(TimeText.dayAndTime(next, in: zone))"
        } else if case .fixed(let date)? = alarm.schedule {
            // Already counting down to it (--countdown longer than the time left).
            line += ": rings \(TimeText.dayAndTime(date, in: zone))"
        } else if alarm.schedule == nil, let length = alarm.countdownDuration?.preAlert {
            line += ": rings in \(TimeText.length(length))"
        }
        let repetition = TimeText.repetition(of: alarm)
        if repetition != "once" && repetition != "timer" { line += ", repeats \(repetition)" }
        Swift.print(line)
    }
}
