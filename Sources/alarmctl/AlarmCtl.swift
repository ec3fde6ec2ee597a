import ArgumentParser
import BuildVersion
import Glibc
import LinuxSupport

/// `alarmctl`: the command-line client of alarmd.
///
/// Every command but `preview` talks to the daemon over its control socket, as the AlarmKit API
/// (`AlarmManager` over `SocketAlarmBackend`) and the daemon's own operations (`status`,
/// `history`) do.
///
/// The exit statuses scripts rely on are ``CommandFailure``'s, listed in `discussion` below.
/// Every error is exactly one line on stderr, `alarmctl: <message>`, its text from elsewhere
/// (the daemon's reasons, names, titles) printed through ``TerminalText``.
@main
struct AlarmCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarmctl",
        abstract: "Control the alarm clock.",
        discussion: """
            The daemon's socket is --socket PATH (before or after the command), else $ALARMD_SOCKET, else \(SocketOptions.defaultPath). \
            Durations are written 9m, 90s, 1h30m or 500ms. Alarms are named by their id or any \
            prefix of it that is unique among your alarms (list shows 8 characters). \
            Exit status: 0 done; 1 refused by alarmd (its message is printed); 64 bad arguments; \
            69 alarmd not running; 77 no permission on the socket. Errors are one line on stderr.
            """,
        version: AlarmdVersion.current,
        subcommands: [
            ScheduleCommand.self, TimerCommand.self, ListCommand.self, ShowCommand.self,
            CancelCommand.self, StopCommand.self, SnoozeCommand.self, PauseCommand.self, ResumeCommand.self,
            DisableCommand.self, EnableCommand.self, SkipCommand.self, WakeCommand.self,
            WatchCommand.self, AuthCommand.self, StatusCommand.self, HistoryCommand.self, TimeCommand.self, SoundsCommand.self, Preview.self, WebCommand.self,
        ]
    )

    /// `--socket PATH` before the command; the command's own group receives the same value.
    @OptionGroup var connection: SocketOptions

    /// Scripts rely on errors being exactly one line on stderr, so errors are printed here rather
    /// than by ArgumentParser, which adds usage lines.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            writeToStandardError("alarmctl: \(TerminalText.escaped(failure.message))\n")
            Glibc.exit(failure.exitStatus)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Glibc.exit(0)
            }
            let message = self.message(for: error)
                .split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? "\(error)"
            writeToStandardError("alarmctl: \(TerminalText.escaped(message))\n")
            Glibc.exit(code.rawValue == 0 ? 1 : code.rawValue)
        }
    }
}
