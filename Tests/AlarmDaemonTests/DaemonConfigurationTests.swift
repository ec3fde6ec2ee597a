import AlarmAppliance
import AlarmBoard
import AlarmDaemon
import AlarmEngine
import AlarmModel
import AlarmProtocol
import AlarmTestKit
import TOMLConfig
import Testing

@Suite struct DaemonConfigurationTests {
    /// Every key set to something other than its default, one per line, so a test can predict
    /// each key's line.
    static let everyKey = """
        board = "rpi5"
        boards_directory = "/opt/boards"
        state_directory = "/data/alarmd"
        socket = "/run/clock/control.sock"
        socket_group = "clock-users"
        admin_group = "wheel"
        log_level = "debug"
        [alarms]
        snooze = "5m"
        auto_silence = "0"
        missed_grace = "1h"
        max_alarms = 20
        max_alarms_per_user = 7
        missed_history = 5
        [sound]
        volume_db = -3
        crescendo_start_db = -40.5
        crescendo = "1m"
        sounds_directory = "/home/sounds"
        retry = "30s"
        [display]
        clock = "12h"
        backlight = "20s"
        next_alarm = "3s"
        retry = "1m"
        night = "23:00-06:00"
        [buttons]
        long_press = "1500ms"
        # [clock] trust is retired: the time source replaces it
        #
        [control]
        max_clients = 8
        max_clients_per_user = 2
        max_admin_clients = 4
        idle_timeout = "0"
        authorization_timeout = "30s"
        [light]
        lead = "30m"
        after_stop = "on"
        kept_on = "45m"
        """

    @Test func everyKeyIsRead() throws {
        let loaded = try DaemonConfiguration.parse(Self.everyKey, file: "a.toml")
        #expect(loaded.warnings == [])
        var expected = DaemonConfiguration()
        expected.board = .named("rpi5")
        expected.boardOrigin = .file("a.toml", line: 1, key: "board")
        expected.boardsDirectory = "/opt/boards"
        expected.stateDirectory = "/data/alarmd"
        expected.socketPath = "/run/clock/control.sock"
        expected.socketGroup = "clock-users"
        expected.adminGroup = "wheel"
        expected.logLevel = .debug
        expected.defaultSnooze = .seconds(300)
        expected.engine = EnginePolicy(
            missedAlarmGrace: 3600, autoSilence: 0, maximumAlarms: 20, maximumAlarmsPerClient: 7, missedHistoryLimit: 5)
        expected.appliance.volume = -3
        expected.appliance.crescendoStart = -40.5
        expected.appliance.crescendo = .seconds(60)
        expected.appliance.soundsDirectory = "/home/sounds"
        expected.appliance.soundRetryInterval = .seconds(30)
        expected.appliance.clockFormat = .twelveHour
        expected.appliance.backlightDuration = .seconds(20)
        expected.appliance.nextAlarmDisplayDuration = .seconds(3)
        expected.appliance.displayRetryInterval = .seconds(60)
        expected.appliance.nightHours = NightHours("23:00-06:00")
        expected.appliance.sunriseLead = .seconds(30 * 60)
        expected.appliance.lightAfterStop = .on
        expected.appliance.lightKeptOn = .seconds(45 * 60)
        expected.appliance.longPressDuration = .milliseconds(1500)
        expected.control.maximumClients = 8
        expected.control.maximumClientsPerUser = 2
        expected.control.maximumAdministratorClients = 4
        expected.control.idleTimeout = nil
        expected.appliance.authorizationTimeout = .seconds(30)
        #expect(loaded.configuration == expected)
        #expect(throws: Never.self) { try loaded.configuration.engine.validate() }
    }

    @Test func anEmptyFileGivesTheDocumentedDefaults() throws {
        let loaded = try DaemonConfiguration.parse("", file: "e.toml")
        let configuration = loaded.configuration
        #expect(configuration == DaemonConfiguration())
        #expect(configuration.board == .automatic)
        #expect(configuration.boardsDirectory == "/usr/share/alarmd/boards")
        #expect(configuration.stateDirectory == "/var/lib/alarmd")
        #expect(configuration.socketPath == "/run/alarmd/control.sock")
        #expect(configuration.socketGroup == "alarmd")
        #expect(configuration.adminGroup == "alarmd-admin")
        #expect(configuration.logLevel == .info)
        #expect(configuration.defaultSnooze == .seconds(540))
        #expect(configuration.engine == .default)
        #expect(configuration.clockTrust == .default)
        #expect(configuration.appliance == ApplianceSettings())
        #expect(configuration.control.maximumClients == 64 && configuration.control.idleTimeout == .seconds(300))
        #expect(configuration.control.maximumClientsPerUser == 16 && configuration.control.maximumAdministratorClients == 32)
    }

    /// `deploy/alarmd.toml` is the documentation of every key: it must parse without warnings, equal
    /// the built-in defaults, and with every line uncommented still equal them (the documented
    /// defaults are the real ones) and name every key the reader knows.
    @Test func theShippedFileDocumentsTheDefaults() throws {
        let text = try RepositoryFiles.text(RepositoryFiles.shippedConfiguration)
        let loaded = try DaemonConfiguration.parse(text, file: "deploy/alarmd.toml")
        #expect(loaded.warnings == [])
        #expect(loaded.configuration == DaemonConfiguration())

        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("#") && line.dropFirst().first?.isLetter == true ? line.dropFirst() : line
        }.joined(separator: "\n")
        let active = try DaemonConfiguration.parse(uncommented, file: "deploy/alarmd.toml")
        #expect(active.warnings == [])
        var expected = DaemonConfiguration()
        expected.boardOrigin = active.configuration.boardOrigin
        #expect(active.configuration == expected)
        let keys = Set(uncommented.split(separator: "\n").compactMap { line -> Substring? in
            guard let equals = line.firstIndex(of: "="), line.first?.isLetter == true else { return nil }
            return line[..<equals].split(separator: " ").first
        })
        let documented = Set(Self.everyKey.split(separator: "\n").compactMap { line -> Substring? in
            guard let equals = line.firstIndex(of: "=") else { return nil }
            return line[..<equals].split(separator: " ").first
        })
        #expect(keys == documented)
    }

    /// Each case replaces one line of ``everyKey``; the error must be exactly this line.
    @Test(arguments: [
        (1, "board = \"\"", "a.toml:1: board: must not be empty"),
        (3, "state_directory = \"var/lib\"", "a.toml:3: state_directory: \"var/lib\" is not an absolute path (it must start with /)"),
        (4, "socket = \"/run/" + String(repeating: "x", count: 120) + "\"", "a.toml:4: socket: is 125 bytes long; a socket's path may have at most 107"),
        (5, "socket_group = \"\"", "a.toml:5: socket_group: \"\" is not a group name (lower-case letters, digits, _ and -, starting with a letter or _, at most 32)"),
        (6, "admin_group = \"Admins\"", "a.toml:6: admin_group: \"Admins\" is not a group name (lower-case letters, digits, _ and -, starting with a letter or _, at most 32)"),
        (7, "log_level = \"verbose\"", "a.toml:7: log_level: must be one of \"trace\", \"debug\", \"info\", \"notice\", \"warning\", \"error\", \"critical\"; found \"verbose\""),
        (9, "snooze = \"0\"", "a.toml:9: alarms.snooze: must be from 1s to 24h, found \"0\""),
        (10, "auto_silence = 900", "a.toml:10: alarms.auto_silence: a duration needs a unit: write \"900s\" or \"900m\", in quotes"),
        (11, "missed_grace = \"2d\"", "a.toml:11: alarms.missed_grace: \"2d\" is not a duration; write it like \"9m\", \"90s\", \"1h30m\" or \"500ms\""),
        (12, "max_alarms = 0", "a.toml:12: alarms.max_alarms: must be from 1 to 100000, found 0"),
        (13, "max_alarms_per_user = 0", "a.toml:13: alarms.max_alarms_per_user: must be from 1 to 100000, found 0"),
        (16, "volume_db = 3", "a.toml:16: sound.volume_db: must be from -60.0 to 0.0, found 3"),
        (18, "crescendo = \"46m\"", "a.toml:18: sound.crescendo: must be from 0 to 45m, found \"46m\""),
        (22, "clock = \"24\"", "a.toml:22: display.clock: must be one of \"24h\", \"12h\"; found \"24\""),
        (26, "night = \"22:00\"", "a.toml:26: display.night: must be \"off\" or night hours like \"22:00-06:30\" (24-hour HH:MM, start and end different), found \"22:00\""),
        (32, "max_clients = \"8\"", "a.toml:32: control.max_clients: expected an integer from 1 to 1024, found string \"8\""),
        (33, "max_clients_per_user = 0", "a.toml:33: control.max_clients_per_user: must be from 1 to 1024, found 0"),
        (35, "idle_timeout = 5m", "a.toml:35: control.idle_timeout: invalid value 5m (strings need quotes: \"5m\")"),
    ])
    func aBadValueIsOneLineNamingFileLineAndKey(line: Int, replacement: String, message: String) {
        var lines = Self.everyKey.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[line - 1] = replacement
        do throws(ConfigError) {
            _ = try DaemonConfiguration.parse(lines.joined(separator: "\n"), file: "a.toml")
            Issue.record("accepted: \(replacement)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func unknownKeysAndTablesAreWarningsWithSuggestions() throws {
        let text = """
            board = "rpi4b"
            boards_dir = "/x"
            [alarms]
            snoze = "5m"
            [sounds]
            volume_db = -3
            """
        let loaded = try DaemonConfiguration.parse(text, file: "w.toml")
        #expect(loaded.warnings.map(\.description) == [
            "w.toml:2: boards_dir: unknown key, ignored",
            "w.toml:4: alarms.snoze: unknown key, ignored (did you mean alarms.snooze?)",
            "w.toml:6: sounds.volume_db: unknown key, ignored (did you mean sound.volume_db?)",
        ])
        #expect(loaded.configuration.defaultSnooze == .seconds(540))
    }

    @Test(arguments: ["release-date", "synchronized", "always", "ntp"])
    func theRetiredClockTrustIsIgnoredWithAWarningAndAlarmsRingOnTheClocksBestGuess(_ value: String) throws {
        let loaded = try DaemonConfiguration.parse("[clock]\ntrust = \"\(value)\"", file: "t.toml")
        #expect(loaded.configuration.clockTrust == DaemonConfiguration().clockTrust)
        #expect(loaded.warnings.map(\.description) == [
            "t.toml:2: clock.trust: no longer read, ignored: " + DaemonConfiguration.retiredKeys["clock.trust"]!,
        ])
    }

    @Test func theRetiredButtonDebounceNamesTheBoardsInstead() throws {
        let loaded = try DaemonConfiguration.parse("[buttons]\ndebounce = \"50ms\"", file: "r.toml")
        #expect(loaded.warnings.map(\.description) == [
            "r.toml:2: buttons.debounce: no longer read, ignored: buttons are debounced once, by the board profile's gpio.debounce_ms",
        ])
    }

    @Test func aMissingDefaultFileMeansDefaultsButAMissingExplicitFileIsAnError() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path + "/alarmd.toml"
        #expect(throws: ConfigError(file: missing, line: 0, message: "cannot open: no such file (--config names a file that must exist)")) {
            try DaemonConfiguration.load(path: missing)
        }
        try TestFiles.write(Array("[alarms]\nsnooze = \"7m\"\n".utf8), to: missing)
        let loaded = try DaemonConfiguration.load(path: missing)
        #expect(loaded.file == missing && loaded.configuration.defaultSnooze == .seconds(420))

        try TestFiles.write([0x61, 0x3D, 0x22, 0xFF, 0x22, 0x0A], to: missing)
        #expect(throws: ConfigError(file: missing, line: 1, message: "not UTF-8 text")) { try DaemonConfiguration.load(path: missing) }
        #expect(throws: ConfigError(file: directory.path, line: 0, message: "cannot read: Is a directory")) {
            try DaemonConfiguration.load(path: directory.path)
        }
    }

    @Test func theDefaultPathIsReadWhenNoneIsGiven() throws {
        #expect(DaemonConfiguration.defaultPath == "/etc/alarmd/alarmd.toml")
        // Whatever this machine has there, loading it must not claim a file it did not read.
        if TestFiles.read(DaemonConfiguration.defaultPath) == nil {
            let loaded = try DaemonConfiguration.load(path: nil)
            #expect(loaded.file == nil && loaded.configuration == DaemonConfiguration() && loaded.warnings == [])
        }
    }

    @Test func theCommandLineOverridesTheFile() throws {
        let file = try DaemonConfiguration.parse(Self.everyKey, file: "a.toml").configuration
        let merged = try file.merged(with: .init(board: "./my-board.toml", stateDirectory: "/tmp/state", socketPath: "/tmp/s.sock", logLevel: .trace))
        #expect(merged.board == .path("./my-board.toml"))
        #expect(merged.boardOrigin == .commandLine(option: "--board"))
        #expect(merged.stateDirectory == "/tmp/state" && merged.socketPath == "/tmp/s.sock" && merged.logLevel == .trace)
        #expect(merged.adminGroup == "wheel" && merged.defaultSnooze == .seconds(300))
        #expect(try file.merged(with: .init()) == file)

        #expect(throws: ConfigError(file: "command line", line: 0, key: "--state-dir", message: "\"state\" is not an absolute path (it must start with /)")) {
            try file.merged(with: .init(stateDirectory: "state"))
        }
        #expect(throws: ConfigError(file: "command line", line: 0, key: "--socket", message: "\"/run/\" names a directory; give the socket's file name")) {
            try file.merged(with: .init(socketPath: "/run/"))
        }
        #expect(throws: ConfigError(file: "command line", line: 0, key: "--board", message: "must not be empty")) {
            try file.merged(with: .init(board: ""))
        }
        #expect("\(ConfigError(file: "command line", line: 0, key: "--board", message: "x"))" == "command line: --board: x")
    }

    @Test func boardSelectionWords() {
        #expect(DaemonConfiguration.BoardSelection("auto") == .automatic)
        #expect(DaemonConfiguration.BoardSelection("rpi4b") == .named("rpi4b"))
        #expect(DaemonConfiguration.BoardSelection("boards/x") == .path("boards/x"))
        #expect(DaemonConfiguration.BoardSelection("x.toml") == .path("x.toml"))
    }
}

extension DaemonConfiguration {
    func merged(with overrides: Overrides) throws(ConfigError) -> DaemonConfiguration {
        var merged = self
        try merged.apply(overrides)
        return merged
    }
}
