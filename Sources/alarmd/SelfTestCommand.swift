import AlarmBoard
import AlarmTime
import ArgumentParser
import Glibc
import LinuxSupport
import Logging

/// `alarmd selftest`: checks a board's LED, display, sound and buttons, with a person or without.
struct SelfTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selftest",
        abstract: "Check the board's LED, display, sound and buttons.",
        discussion: """
            Blinks the LED, shows a test pattern and the icons on the LCD, plays a short tone and \
            asks for each button, then reports what worked; each failure with its cause and a hint. \
            Exit status: 0 if every part checked passed, 1 if any failed, 78 for a bad profile.
            """
    )

    @Option(help: ArgumentHelp("The board profile: a name from the profiles directory, or a path.", valueName: "NAME|PATH"))
    var board: String

    @Option(help: ArgumentHelp(
        "Where named profiles are (default: /usr/share/alarmd/boards if it exists, else ./board).", valueName: "DIR"))
    var boardsDirectory: String?

    @Flag(help: "Run the output checks without asking anything; buttons are only opened, not pressed.")
    var nonInteractive = false

    @Option(help: ArgumentHelp("How long the LED blinks and the tone plays, in seconds.", valueName: "SECONDS"))
    var showSeconds: Double = 2

    @Option(name: .customLong("only"), help: ArgumentHelp("Check only this part (repeatable): led, display, sound, buttons.", valueName: "PART"))
    var parts: [String] = []

    func validate() throws {
        guard showSeconds.isFinite, showSeconds >= 0, showSeconds <= 60 else {
            throw ValidationError("--show-seconds \(showSeconds) must be between 0 and 60")
        }
        for part in parts where BoardPart(rawValue: part) == nil {
            throw ValidationError("--only \"\(part)\" is not led, display, sound or buttons")
        }
    }

    func run() async throws {
        let directory = BoardProfile.lookupDirectory(for: boardsDirectory ?? BoardProfile.installedDirectory)
        let loaded: BoardProfile.Loaded
        do {
            loaded = try BoardProfile.load(nameOrPath: board, directory: directory)
        } catch {
            writeToStandardError("alarmd: \(error)\n")
            throw ExitCode(78)
        }
        for warning in loaded.warnings {
            writeToStandardError("alarmd: warning: \(warning)\n")
        }
        var logger = Logger(label: "alarmd")
        logger.logLevel = .warning
        let say: @Sendable (String) -> Void = { writeAll($0 + "\n", to: 1) }
        say("Self-test of \(loaded.profile.name) (\(loaded.file))\(nonInteractive ? ", non-interactive" : "")")
        let opened = await BoardParts.open(loaded.profile, clock: SystemWallClock(), logger: logger)
        let selected = parts.isEmpty ? Set(BoardPart.allCases) : Set(parts.compactMap(BoardPart.init(rawValue:)))
        var run = SelfTestRun(parts: opened, only: selected, person: nonInteractive ? nil : TerminalPerson(), say: say)
        run.showFor = .milliseconds(Int((showSeconds * 1000).rounded()))
        let results = await run.run()
        let failed = results.filter { !$0.passed }
        say(failed.isEmpty
            ? "All \(results.count) checked parts work."
            : "\(failed.count) of \(results.count) parts failed: \(failed.map(\.part.rawValue).joined(separator: ", ")).")
        if !failed.isEmpty { throw ExitCode(1) }
    }
}
