import AlarmBoard
import AlarmDaemon
import AlarmEngine
import AlarmProtocol
import AlarmTime
import ArgumentParser
import Glibc
import LinuxSupport
import Logging

/// `alarmd selftest`: checks a board's LED, display, sound and buttons, with a person or without.
struct SelfTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selftest",
        abstract: "Check the board's LED, display, sunrise light, sound and buttons.",
        discussion: """
            Blinks the LED, shows a test pattern and the icons on the LCD, plays a short tone and \
            asks for each button, then reports what worked; each failure with its cause and a hint. \
            When alarmd runs (its control socket answers), the service checks the parts it holds \
            itself and redraws its screen whole afterwards; that needs root or the admin group. \
            An alarm always comes first: the check is refused while one rings and ends when one \
            begins. \
            Exit status: 0 if every part checked passed, 1 if any failed (or an alarm ended the \
            check), 75 if the service refused to start it (an alarm rings), 77 if the running \
            service is out of this user's reach, 78 for a bad profile.
            """
    )

    @Option(help: ArgumentHelp(
        "The board profile: a name from the profiles directory, or a path (default: the service's, from its configuration file).",
        valueName: "NAME|PATH"))
    var board: String?

    @Option(help: ArgumentHelp(
        "Where named profiles are (default: /usr/share/alarmd/boards if it exists, else ./board).", valueName: "DIR"))
    var boardsDirectory: String?

    @Option(help: ArgumentHelp(
        "The service's configuration file, for its board and socket (default: \(DaemonConfiguration.defaultPath)).",
        valueName: "FILE"))
    var config: String?

    @Flag(help: "Run the output checks without asking anything; buttons are only opened, not pressed.")
    var nonInteractive = false

    @Option(help: ArgumentHelp("How long the LED blinks and the tone plays, in seconds.", valueName: "SECONDS"))
    var showSeconds: Double = 2

    @Option(help: ArgumentHelp(
        "The running service's control socket (default: the socket key of /etc/alarmd/alarmd.toml, else \(ControlProtocol.defaultSocketPath)).",
        valueName: "PATH"))
    var socket: String?

    @Option(name: .customLong("only"), help: ArgumentHelp("Check only this part (repeatable): led, display, light, sound, buttons, rtc.", valueName: "PART"))
    var parts: [String] = []

    func validate() throws {
        guard showSeconds.isFinite, showSeconds >= 0, showSeconds <= 60 else {
            throw ValidationError("--show-seconds \(showSeconds) must be between 0 and 60")
        }
        for part in parts where BoardPart(rawValue: part) == nil {
            throw ValidationError("--only \"\(part)\" is not led, display, light, sound, buttons or rtc")
        }
    }

    func run() async throws {
        let loaded: BoardProfile.Loaded
        do {
            loaded = try loadBoard()
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
        var selected = parts.isEmpty ? Set(BoardPart.allCases) : Set(parts.compactMap(BoardPart.init(rawValue:)))
        var results: [PartResult] = []
        // A board without a sunrise light: not checked unless asked for, and then a failure that says why.
        if loaded.profile.light == nil, selected.remove(.light) != nil, !parts.isEmpty {
            let missing = PartResult(part: .light, passed: false, detail: SelfTestRun.noLight, hint: SelfTestRun.noLightHint)
            SelfTestRun.sayVerdict(missing, say: say)
            results.append(missing)
        }
        // Only the RTC: nothing a service holds, so no service is asked and no part opened.
        if !selected.isDisjoint(with: BoardPart.held) {
            results += try await checkHeldParts(loaded.profile, selected: selected, logger: logger, say: say)
        }
        // The machine's RTC, read from sysfs (beside the service too); a simulated board has none.
        if selected.contains(.rtc), !loaded.profile.simulated {
            results.append(Self.checkRTC(loaded.profile.rtc, say: say))
        }
        let failed = results.filter { !$0.passed }
        say(failed.isEmpty
            ? "All \(results.count) checked parts work."
            : "\(failed.count) of \(results.count) parts failed: \(failed.map(\.part.rawValue).joined(separator: ", ")).")
        if !failed.isEmpty { throw ExitCode(1) }
    }

    /// The LED, display, sound and buttons: through the running service, which holds them, or
    /// opened here as the service opens them when none runs.
    private func checkHeldParts(
        _ profile: BoardProfile, selected: Set<BoardPart>, logger: Logger, say: @escaping @Sendable (String) -> Void
    ) async throws -> [PartResult] {
        let person = nonInteractive ? nil : TerminalPerson()
        let showFor = Duration.milliseconds(Int((showSeconds * 1000).rounded()))
        let socketPath = socket ?? Self.configuredSocketPath(config)
        switch await RunningService.find(socket: socketPath) {
        case .refusesUser:
            writeToStandardError("alarmd: alarmd is running and holds the board, and its socket \(socketPath) refuses you: "
                + "run `\(asRoot)` so the service checks its own parts\n")
            throw ExitCode(77)
        case .answering(let client, let hello):
            defer { client.close() }
            guard hello.admin else {
                writeToStandardError("alarmd: alarmd is running and holds the board; only root and its admin group may have it "
                    + "check its parts: run `\(asRoot)`\n")
                throw ExitCode(77)
            }
            say("The running alarmd (\(socketPath)) checks the parts it holds.")
            var run = ServiceSelfTest(client: client, only: selected, person: person, say: say)
            run.showFor = showFor
            do {
                return try await run.run()
            } catch {
                writeToStandardError("alarmd: \(error.message)\n")
                throw ExitCode(error.exitStatus)
            }
        case .absent:
            // The service's own opener, quiet: what it would journal, the checks below report.
            var quiet = logger
            quiet.logLevel = .critical
            let board = await DaemonBoard.open(profile, volume: nil, clock: SystemWallClock(), logger: quiet)
            var run = SelfTestRun(parts: await board.selfTestParts(profile), only: selected, person: person, say: say)
            run.showFor = showFor
            return await run.run()
        }
    }

    private static func checkRTC(_ rtc: BoardProfile.RTC, say: @Sendable (String) -> Void) -> PartResult {
        say("RTC: reading /sys/class/rtc/rtc0...")
        let verdict = RTCCheck(
            profile: rtc, readings: SystemClockReadings().read(), battery: RTCCheck.battery(),
            releaseDate: ClockTrustPolicy.firmwareReleaseDate
        ).run()
        let result = PartResult(part: .rtc, passed: verdict.passed, detail: verdict.detail, hint: verdict.hint)
        SelfTestRun.sayVerdict(result, say: say)
        return result
    }

    /// This command again, as root.
    private var asRoot: String {
        (["sudo", "alarmd"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
    }

    /// Where the service listens: the configuration file's `socket`, else the default. A
    /// file that cannot be read leaves the default (the service would not have started with it).
    /// `--board`, or else the board the service uses: the configuration file's (`board =
    /// "auto"` detected as the service detects it).
    private func loadBoard() throws -> BoardProfile.Loaded {
        if let board {
            let directory = BoardProfile.lookupDirectory(for: boardsDirectory ?? BoardProfile.installedDirectory)
            return try BoardProfile.load(nameOrPath: board, directory: directory)
        }
        var configuration = try DaemonConfiguration.load(path: config).configuration
        if let boardsDirectory { configuration.boardsDirectory = boardsDirectory }
        return try configuration.loadBoard()
    }

    static func configuredSocketPath(_ config: String?) -> String {
        (try? DaemonConfiguration.load(path: config))?.configuration.socketPath ?? ControlProtocol.defaultSocketPath
    }
}
