import AlarmAppliance
import AlarmBoard
import AlarmEngine
import AlarmModel
import AlarmProtocol
import AlarmTime
import Logging
import TOMLConfig

extension DaemonConfiguration {
    /// A configuration with the file it came from and the keys in it that were ignored.
    public struct Loaded: Hashable, Sendable {
        public var configuration: DaemonConfiguration
        /// The file that was read; `nil` when the default file was missing and the built-in
        /// defaults apply (worth a notice in the log).
        public var file: String?
        /// Unknown keys and tables (typos, most likely); log them, they never stop the daemon.
        public var warnings: [ConfigWarning]
    }

    /// Reads a configuration file's text; keys it lacks keep their defaults. Throws the first
    /// problem.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> Loaded {
        var reader = ConfigReader(try TOMLDocument.parse(text, file: file))
        let configuration = try DaemonConfiguration(reading: &reader)
        let warnings = reader.unknownKeys.map { warning in
            var warning = warning
            if let replacement = retiredKeys[warning.key] { warning.message = "no longer read, ignored: " + replacement }
            return warning
        }
        return Loaded(configuration: configuration, file: file, warnings: warnings)
    }

    /// Keys earlier releases read, and what a person sets instead.
    public static let retiredKeys = [
        "buttons.debounce": "buttons are debounced once, by the board profile's gpio.debounce_ms",
        "clock.trust": "alarms ring on the clock's best guess whatever set it, and `alarmctl status` says where its time "
            + "came from and whether anything confirmed it (docs/durability.md)",
    ]

    /// Reads every key of the format from `reader`, so that its ``ConfigReader/unknownKeys`` are
    /// what the format does not know.
    public init(reading reader: inout ConfigReader) throws(ConfigError) {
        self.init()
        let defaults = self
        if let text = try reader.optional("board", as: .nonEmptyString) {
            board = BoardSelection(text)
            boardOrigin = .file(reader.file, line: reader.line(of: "board"), key: "board")
        }
        boardsDirectory = try reader.value("boards_directory", as: .nonEmptyString, default: defaults.boardsDirectory)
        stateDirectory = try reader.value("state_directory", as: .absolutePath, default: defaults.stateDirectory)
        socketPath = try reader.value("socket", as: .socketPath, default: defaults.socketPath)
        socketGroup = try reader.value("socket_group", as: .groupName, default: defaults.socketGroup)
        adminGroup = try reader.value("admin_group", as: .groupName, default: defaults.adminGroup)
        logLevel = try reader.value("log_level", as: .word(Logger.Level.self), default: defaults.logLevel)

        defaultSnooze = try reader.value("alarms.snooze", as: .duration(in: .seconds(1) ... .seconds(86_400)), default: defaults.defaultSnooze)
        engine.autoSilence = try reader.seconds("alarms.auto_silence", in: .zero ... .seconds(86_400), default: defaults.engine.autoSilence)
        engine.missedAlarmGrace = try reader.seconds("alarms.missed_grace", in: .zero ... .seconds(86_400), default: defaults.engine.missedAlarmGrace)
        engine.maximumAlarms = try reader.value("alarms.max_alarms", as: .integer(in: 1...100_000), default: defaults.engine.maximumAlarms)
        engine.maximumAlarmsPerClient = try reader.value(
            "alarms.max_alarms_per_user", as: .integer(in: 1...100_000), default: defaults.engine.maximumAlarmsPerClient)
        engine.missedHistoryLimit = try reader.value("alarms.missed_history", as: .integer(in: 1...1000), default: defaults.engine.missedHistoryLimit)

        appliance.volume = try reader.value("sound.volume_db", as: .number(in: -60...0), default: defaults.appliance.volume)
        appliance.crescendoStart = try reader.value("sound.crescendo_start_db", as: .number(in: -90...0), default: defaults.appliance.crescendoStart)
        appliance.crescendo = try reader.value("sound.crescendo", as: .duration(in: .zero ... .seconds(2_700)), default: defaults.appliance.crescendo)
        appliance.soundsDirectory = try reader.value("sound.sounds_directory", as: .absolutePath, default: defaults.appliance.soundsDirectory)
        appliance.soundRetryInterval = try reader.value("sound.retry", as: .duration(in: .seconds(1) ... .seconds(600)), default: defaults.appliance.soundRetryInterval)

        appliance.clockFormat = try reader.value("display.clock", as: .word(ApplianceSettings.ClockFormat.self), default: defaults.appliance.clockFormat)
        appliance.backlightDuration = try reader.value("display.backlight", as: .duration(in: .zero ... .seconds(3600)), default: defaults.appliance.backlightDuration)
        appliance.nightHours = try reader.value("display.night", as: .nightHours, default: defaults.appliance.nightHours)
        appliance.nextAlarmDisplayDuration = try reader.value("display.next_alarm", as: .duration(in: .zero ... .seconds(60)), default: defaults.appliance.nextAlarmDisplayDuration)
        appliance.displayRetryInterval = try reader.value("display.retry", as: .duration(in: .seconds(1) ... .seconds(600)), default: defaults.appliance.displayRetryInterval)

        appliance.sunriseLead = try reader.value("light.lead", as: .duration(in: .zero ... .seconds(3_600)), default: defaults.appliance.sunriseLead)
        appliance.lightAfterStop = try reader.value(
            "light.after_stop", as: .word(ApplianceSettings.LightAfterStop.self), default: defaults.appliance.lightAfterStop)
        appliance.lightKeptOn = try reader.value("light.kept_on", as: .duration(in: .seconds(60) ... .seconds(6 * 3600)), default: defaults.appliance.lightKeptOn)

        appliance.longPressDuration = try reader.value("buttons.long_press", as: .duration(in: .milliseconds(500) ... .seconds(10)), default: defaults.appliance.longPressDuration)

        control.maximumClients = try reader.value("control.max_clients", as: .integer(in: 1...1024), default: defaults.control.maximumClients)
        control.maximumClientsPerUser = try reader.value(
            "control.max_clients_per_user", as: .integer(in: 1...1024), default: defaults.control.maximumClientsPerUser)
        control.maximumAdministratorClients = try reader.value(
            "control.max_admin_clients", as: .integer(in: 1...1024), default: defaults.control.maximumAdministratorClients)
        if let timeout = try reader.optional("control.idle_timeout", as: .duration(in: .zero ... .seconds(86_400))) {
            control.idleTimeout = timeout == .zero ? nil : timeout
        }
        appliance.authorizationTimeout = try reader.value(
            "control.authorization_timeout", as: .duration(in: .seconds(5) ... .seconds(600)), default: defaults.appliance.authorizationTimeout)
    }
}

extension ConfigReader {
    /// A duration key as the engine's `TimeInterval` seconds.
    fileprivate mutating func seconds(_ key: String, in range: ClosedRange<Duration>, default defaultValue: Double) throws(ConfigError) -> Double {
        guard let duration = try optional(key, as: .duration(in: range)) else { return defaultValue }
        return duration.timeInterval
    }
}

extension ConfigType where Value == NightHours? {
    /// `"22:00-06:30"`: the night's start and end, 24-hour times, different; `"off"`: none.
    static var nightHours: ConfigType<NightHours?> {
        ConfigType<NightHours?>(expected: "night hours like \"22:00-06:30\"") { value in
            if case .string("off") = value { return .success(nil) }
            guard case .string(let text) = value, let night = NightHours(text) else {
                let found = if case .string(let text) = value { "\"\(text)\"" } else { ConfigType<String>.shown(value) }
                return .failure(ConfigRefusal(
                    "must be \"off\" or night hours like \"22:00-06:30\" (24-hour HH:MM, start and end different), found \(found)"))
            }
            return .success(night)
        }
    }
}

extension ConfigType where Value == String {
    static var absolutePath: ConfigType<String> {
        checked("an absolute path", by: DaemonConfiguration.checkAbsolutePath)
    }

    /// An absolute path short enough for a Unix socket's address.
    static var socketPath: ConfigType<String> {
        checked("an absolute path for a socket", by: DaemonConfiguration.checkSocketPath)
    }

    /// A group name as `groupadd` accepts it.
    static var groupName: ConfigType<String> {
        checked("a group name", by: DaemonConfiguration.checkGroupName)
    }

    /// A string in which `problem` finds nothing wrong; its answer is the refusal otherwise.
    private static func checked(_ expected: String, by problem: @escaping @Sendable (String) -> String?) -> ConfigType<String> {
        ConfigType(expected: expected) { value in
            guard case .string(let text) = value else { return .failure(checked(expected, by: problem).mismatch(value)) }
            return problem(text).map { .failure(ConfigRefusal($0)) } ?? .success(text)
        }
    }
}

extension DaemonConfiguration {
    static func checkAbsolutePath(_ path: String) -> String? {
        path.hasPrefix("/") ? nil : "\"\(path)\" is not an absolute path (it must start with /)"
    }

    /// Why `path` cannot be a Unix socket's address, or `nil`. `sun_path` holds 108 bytes with the
    /// terminating NUL.
    static func checkSocketPath(_ path: String) -> String? {
        if let problem = checkAbsolutePath(path) { return problem }
        if path.utf8.count > 107 { return "is \(path.utf8.count) bytes long; a socket's path may have at most 107" }
        if path.hasSuffix("/") { return "\"\(path)\" names a directory; give the socket's file name" }
        return nil
    }

    /// Why `name` is not a group name `groupadd` would create (Debian's default rule: a lower-case
    /// letter or `_`, then lower-case letters, digits, `_` and `-`; at most 32), or `nil`.
    static func checkGroupName(_ name: String) -> String? {
        let scalars = Array(name.unicodeScalars)
        let valid = !scalars.isEmpty && scalars.count <= 32
            && (("a"..."z").contains(scalars[0]) || scalars[0] == "_")
            && scalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
        return valid ? nil : "\"\(name)\" is not a group name (lower-case letters, digits, _ and -, starting with a letter or _, at most 32)"
    }
}
