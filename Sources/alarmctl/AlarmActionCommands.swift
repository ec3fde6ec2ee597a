import AlarmKitCore
import ArgumentParser

/// The state changes on one alarm, by id or unique id prefix: `cancel`, `stop`, `snooze`,
/// `pause`, `resume`. Each prints one confirmation line; a change the alarm's state does not
/// allow is refused by alarmd (exit 1, its message on stderr) and changes nothing.
struct AlarmActionArguments: ParsableArguments {
    @Argument(help: ArgumentHelp("The alarm's id or a prefix of it that is unique among your alarms.", valueName: "ID"))
    var id: String

    @OptionGroup var connection: SocketOptions

    func perform(_ action: AlarmAction, done: String) async throws {
        let key = try AlarmIDPrefix(id)
        let session = try await connection.connect()
        defer { session.close() }
        let view = try await session.resolve(key)
        try await session.call { try await $0.perform(action, id: view.id) }
        print("\(done) \(view.id.uuidString)\(view.title.map { " \"\(TerminalText.escaped($0))\"" } ?? "")")
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
