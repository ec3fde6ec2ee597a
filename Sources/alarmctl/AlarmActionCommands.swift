import AlarmClient
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import ArgumentParser
import FoundationEssentials

/// The state changes on one alarm, by id or unique id prefix: `cancel`, `stop`, `snooze`,
/// `pause`, `resume`, and the device's own `disable`, `enable`, `skip`. Each prints one
/// confirmation line; a change the alarm's state does not allow is refused by alarmd (exit 1,
/// its message on stderr) and changes nothing.
struct AlarmActionArguments: ParsableArguments {
    @Argument(help: ArgumentHelp("The alarm's id or a prefix of it that is unique among your alarms.", valueName: "ID"))
    var id: String

    @OptionGroup var connection: SocketOptions

    /// After `enable` and `skip`, also says when the alarm rings next, which is what they change.
    func perform(_ command: AlarmCommand, done: String) async throws {
        let showingWhen = command == .enable || command == .skip
        try await perform(done: done, showingWhen: showingWhen) { try await $0.perform(command, id: $1) }
    }

    private func perform(
        done: String, showingWhen: Bool, _ change: (ControlClient, Alarm.ID) async throws -> Void
    ) async throws {
        let key = try AlarmIDPrefix(id)
        let session = try await connection.connect()
        defer { session.close() }
        let view = try await session.resolve(key)
        try await session.call { try await change($0, view.id) }
        var line = "\(done) \(view.id.uuidString)\(view.title.map { " \"\(TerminalText.escaped($0))\"" } ?? "")"
        if showingWhen, let record = try await session.records(all: false, id: view.id)?.first {
            line += "; when: " + ListCommand.when(AlarmView(record: record), now: Date(), zone: TimeText.localZone())
        }
        print(line)
    }
}

struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Delete an alarm, whatever its state.")

    @OptionGroup var arguments: AlarmActionArguments

    func run() async throws { try await arguments.perform(.cancel, done: "Cancelled") }
}

struct StopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop", abstract: "Stop a ringing, counting-down or paused alarm.",
        discussion: "A one-time alarm or timer is deleted; a weekly alarm waits for its next day. A scheduled alarm cannot be stopped (cancel it).")

    @OptionGroup var arguments: AlarmActionArguments

    func run() async throws { try await arguments.perform(.stop, done: "Stopped") }
}

struct SnoozeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snooze", abstract: "Snooze a ringing alarm (AlarmKit's countdown).",
        discussion: "Only while it rings: it counts down its snooze length (postAlert, else preAlert) and rings again.")

    @OptionGroup var arguments: AlarmActionArguments

    func run() async throws { try await arguments.perform(.countdown, done: "Snoozed") }
}

struct PauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pause a countdown (a timer, a snooze, a pre-alert countdown).")

    @OptionGroup var arguments: AlarmActionArguments

    func run() async throws { try await arguments.perform(.pause, done: "Paused") }
}

struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Resume a paused countdown where it stopped.")

    @OptionGroup var arguments: AlarmActionArguments

    func run() async throws { try await arguments.perform(.resume, done: "Resumed") }
}

struct DisableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable", abstract: "Keep an alarm without it ringing (beyond AlarmKit).",
        discussion: """
            It stays in the list, disabled: no next time, never missed, until `alarmctl enable`. A \
            snooze or countdown ends. Not while it rings (stop it first), and not for a timer \
            (cancel it). Disabling a disabled alarm changes nothing.
            """)

    @OptionGroup var arguments: AlarmActionArguments

    func run() async throws { try await arguments.perform(.disable, done: "Disabled") }
}

struct EnableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable", abstract: "Let a disabled alarm ring again, or undo a skip (beyond AlarmKit).",
        discussion: """
            A wall-time alarm rings the next time its time comes (a one-time 07:30 enabled at 09:00 \
            rings tomorrow); an alarm for a date that has passed cannot be enabled. On a skipping \
            alarm it undoes the skip. Prints when it rings next.
            """)

    @OptionGroup var arguments: AlarmActionArguments

    func run() async throws { try await arguments.perform(.enable, done: "Enabled") }
}

struct SkipCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip", abstract: "Let a repeating alarm's next time go by; the one after rings (beyond AlarmKit).",
        discussion: """
            The skipped day is a local date (list shows "skips Mon 2026-11-23"), forgotten once it \
            is over; `alarmctl enable` undoes it. While snoozed, the next time after the one that \
            rang is skipped. Only weekly alarms (disable a one-time one), not while it rings. Skipping \
            twice skips one day. Prints when it rings next.
            """)

    @OptionGroup var arguments: AlarmActionArguments

    func run() async throws { try await arguments.perform(.skip, done: "Skipped") }
}
