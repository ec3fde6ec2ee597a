import AlarmKitCore
import ArgumentParser
import FoundationEssentials

struct TimerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timer",
        abstract: "Start a timer.",
        usage: "alarmctl timer DURATION [--title <title>] [--sound <NAME>] [--id <UUID>] [--json] [--socket <PATH>]",
        discussion: """
            The timer counts down at once (pause and resume it by id) and rings at the end; while \
            it rings, SNOOZE ("Repeat") starts it again for the same length. Prints its id and when \
            it rings (--json: the alarm as `show --json`).
            """
    )

    // Every unrecognized word, so that "-5m" reaches the duration check and is named there.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("How long: 9m, 90s, 1h30m, 500ms.", valueName: "DURATION"))
    var duration: [String] = []

    @Option(help: "The title shown while it counts down and rings.")
    var title = "Timer"

    @Option(help: ArgumentHelp("A sound file in the device's sounds directory.", valueName: "NAME"))
    var sound: String?

    @Option(help: ArgumentHelp("Use this id (a UUID) instead of a new one.", valueName: "UUID"))
    var id: String?

    @Flag(help: "Print the timer as JSON.")
    var json = false

    @OptionGroup var connection: SocketOptions

    func run() async throws {
        guard let text = duration.first else { throw CommandFailure.usage("missing the timer's DURATION, such as 9m or 1h30m") }
        guard duration.count == 1 else { throw CommandFailure.usage("unexpected \"\(duration[1])\": timer takes one DURATION") }
        let length = try TimeText.duration(text, option: "timer")
        let definition = AlarmDefinition(
            schedule: nil, countdownDuration: .init(preAlert: length, postAlert: length),
            presentation: AlarmPresentation(
                alert: .init(title: title, stopButton: .stop, secondaryButton: .repeat, secondaryButtonBehavior: .countdown),
                countdown: .init(title: title, pauseButton: .pause),
                paused: .init(title: title, resumeButton: .resume)),
            sound: try ScheduleInput.sound(sound))
        try ScheduleInput.check(definition)
        let alarmID = try ScheduleInput.parse(id)
        let session = try await connection.connect()
        defer { session.close() }
        try await session.announceAuthorizationPrompt()
        let alarm = try await session.call { try await $0.schedule(id: alarmID, definition: definition) }
        try await ScheduledOutput.print(alarm, title: title, session: session, json: json, zone: TimeText.localZone())
    }
}
