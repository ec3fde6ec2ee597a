import AlarmHardware
import AlarmTime
import ArgumentParser
import BuildVersion
import FoundationEssentials
import Glibc
import Logging

/// `alarmd`: the alarm clock appliance. `alarmd --simulate` runs it on the simulated board;
/// `alarmd selftest --board NAME` checks a real board's parts; without either it is the device's
/// service.
@main
struct AlarmdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarmd",
        abstract: "The alarm clock appliance.",
        version: AlarmdVersion.current,
        subcommands: [Alarmd.self, SelfTestCommand.self],
        defaultSubcommand: Alarmd.self
    )
}

/// `alarmd [run]`: the appliance as the device's service, or `--simulate`d in a terminal.
struct Alarmd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the appliance (the default command).",
        discussion: """
            Without --simulate, alarmd is the device's service (systemd starts it): it reads \
            --config (default /etc/alarmd/alarmd.toml), drives the board of the profile, and serves \
            alarmctl on the control socket. \
            alarmd --simulate runs the whole appliance on a simulated board in this terminal: the \
            LCD, the LED and the sound are drawn as text, keys press the buttons; apps and alarmctl \
            reach it on --socket (default $XDG_RUNTIME_DIR/alarmd-simulator.sock, else \
            /tmp/alarmd-simulator-UID.sock), which it names on its screen. \
            alarmd --simulate --script FILE runs a scenario in virtual time instead and prints \
            one line per step, then `N passed, N failed`.
            """
    )

    @Flag(help: "Run on the simulated board in this terminal (or, with --script, a scenario).")
    var simulate = false

    @Option(help: ArgumentHelp("The configuration file (service mode).", valueName: "PATH"))
    var config: String?

    @Option(help: ArgumentHelp("The board profile, a name or a path (service mode; `simulated` runs headless on fakes).", valueName: "NAME|PATH"))
    var board: String?

    @Option(help: ArgumentHelp("The control socket.", valueName: "PATH"))
    var socket: String?

    @Option(help: ArgumentHelp("Run this scenario file in virtual time and exit.", valueName: "FILE"))
    var script: String?

    @Option(help: ArgumentHelp(
        "Start a virtual clock at this instant (2026-11-23T06:58:00+01:00, or 2026-11-23T06:58 local).",
        valueName: "INSTANT"))
    var start: String?

    @Option(help: "Run the virtual clock this many times faster than real time.")
    var speed: Double = 1

    @Option(help: ArgumentHelp("The simulated LCD: 16x2 or 20x4.", valueName: "SIZE"))
    var display: String = "16x2"

    @Option(help: ArgumentHelp("ALSA device for the sound, or `silent`.", valueName: "DEVICE"))
    var sound: String = "default"

    @Option(help: ArgumentHelp("Keep alarms in this directory (default: a fresh one, removed on exit).", valueName: "PATH"))
    var stateDir: String?

    @Option(help: ArgumentHelp(
        "With --simulate: serve the phone page (alarm-web) here, HOST:PORT, or `off`.", valueName: "ADDRESS"))
    var web = "127.0.0.1:8080"

    @Option(help: ArgumentHelp(
        "Log level: trace, debug, info, notice, warning, error, critical (default: info on the screen, warning for --script on stderr).",
        valueName: "LEVEL"))
    var logLevel: String?

    func validate() throws {
        if simulate, config != nil || board != nil {
            throw ValidationError("--config and --board are for the service; --simulate runs the simulator")
        }
        if script != nil, socket != nil {
            throw ValidationError("--script runs a scenario alone; --socket is for the service and the interactive simulator")
        }
        if !simulate, script != nil || start != nil || speed != 1 {
            throw ValidationError("--script, --start and --speed need --simulate")
        }
        guard speed.isFinite, speed > 0, speed <= 100_000 else {
            throw ValidationError("--speed \(speed) must be more than 0 and at most 100000")
        }
        guard displaySize != nil else { throw ValidationError("--display \"\(display)\" is not 16x2 or 20x4") }
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("--log-level \"\(logLevel)\" is not trace, debug, info, notice, warning, error or critical")
        }
        if let start, TimeZoneRules.utc.instant(parsing: start) == nil {
            throw ValidationError("--start \"\(start)\" is not an instant like 2026-11-23T06:58:00+01:00 or 2026-11-23T06:58")
        }
        if script != nil, start != nil || speed != 1 {
            throw ValidationError("--script runs in its own virtual time; --start and --speed are for the interactive simulator")
        }
    }

    var displaySize: DisplaySize? {
        switch display {
        case "16x2": .sixteenByTwo
        case "20x4": .twentyByFour
        default: nil
        }
    }

    var level: Logger.Level {
        logLevel.flatMap(Logger.Level.init(rawValue:)) ?? (simulate && script != nil ? .warning : .info)
    }

    func run() async throws {
        guard simulate else {
            try await DaemonMode(options: self).run()
            return
        }
        if let script {
            let code = await ScriptMode(path: script, logLevel: level).run()
            throw ExitCode(code)
        }
        try await SimulatorMode(options: self).run()
    }
}
