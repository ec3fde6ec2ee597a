import AlarmAppliance
import AlarmBoard
import AlarmEngine
import AlarmProtocol
import Logging
import TOMLConfig

/// Everything `alarmd` is configured with: the board, the paths, the engine's policies, the
/// appliance's settings and the control socket's limits. Built from the defaults, then the
/// configuration file (`/etc/alarmd/alarmd.toml`, every key documented in `deploy/alarmd.toml`),
/// then the command line.
///
/// Every error is one ``ConfigError`` line, `FILE:LINE: KEY: message`; a value given on the
/// command line is named by its option (`command line: --state-dir: ...`).
public struct DaemonConfiguration: Hashable, Sendable {
    public var board: BoardSelection
    /// Where ``board`` was set, for errors about it.
    public var boardOrigin: ConfigOrigin
    /// Where profiles are looked up by name.
    public var boardsDirectory: String
    /// The durable state (alarms, clients). systemd's `StateDirectory=alarmd` creates it.
    public var stateDirectory: String
    /// The control socket `alarmctl` connects to. Its directory must exist (systemd's
    /// `RuntimeDirectory=alarmd`).
    public var socketPath: String
    /// The control socket's group (the socket is mode 0660): people in it may use `alarmctl`.
    /// alarmd must belong to it to hand the socket over; its own group `alarmd` by default.
    public var socketGroup: String
    /// Members of this group may list everyone's alarms and grant or revoke clients.
    public var adminGroup: String
    public var logLevel: Logger.Level
    /// The snooze length clients (`alarmctl`) offer when an alarm names none.
    public var defaultSnooze: Duration
    /// Grace for missed alarms, auto-silence, the device's limit on alarms.
    public var engine: EnginePolicy
    /// When the wall clock is believed.
    public var clockTrust: ClockTrustPolicy
    /// Volume, crescendo, sounds, buttons, display.
    public var appliance: ApplianceSettings
    public var control: ControlLimits

    /// The documented defaults (`deploy/alarmd.toml`).
    public init() {
        board = .automatic
        boardOrigin = .builtIn(key: "board")
        boardsDirectory = BoardProfile.installedDirectory
        stateDirectory = "/var/lib/alarmd"
        socketPath = "/run/alarmd/control.sock"
        socketGroup = "alarmd"
        adminGroup = "alarmd-admin"
        logLevel = .info
        defaultSnooze = .seconds(9 * 60)
        engine = .default
        clockTrust = .default
        appliance = ApplianceSettings()
        control = ControlLimits()
    }

    /// The file read when `--config` is not given; if it is missing the defaults apply.
    public static let defaultPath = "/etc/alarmd/alarmd.toml"
}

extension DaemonConfiguration {
    public enum BoardSelection: Hashable, Sendable {
        /// From the device tree's model string (`/proc/device-tree/model`): the Raspberry Pi 3B+,
        /// 4B, 5 and Zero 2 W are recognised.
        case automatic
        /// `NAME.toml` in ``DaemonConfiguration/boardsDirectory``.
        case named(String)
        case path(String)

        /// `"auto"`, a name, or a path (anything with a `/` or ending in `.toml`).
        public init(_ text: String) {
            if text == "auto" {
                self = .automatic
            } else if BoardProfile.isPath(text) {
                self = .path(text)
            } else {
                self = .named(text)
            }
        }
    }

    public struct ControlLimits: Hashable, Sendable {
        /// Connections of users other than root and the administrators, all together; more are
        /// refused until one closes.
        public var maximumClients: Int = 64
        /// Connections of one such user (subscribers included).
        public var maximumClientsPerUser: Int = 16
        /// Connections of root and the administrators (the phone page), apart from the others'.
        public var maximumAdministratorClients: Int = 32
        /// A connection with no request for this long is closed; `nil` keeps it open.
        public var idleTimeout: Duration? = .seconds(5 * 60)

        public init() {}
    }

    /// Where a setting's value came from, so that a problem found later (a board name that
    /// no profile has) is reported at the line that set it.
    public enum ConfigOrigin: Hashable, Sendable {
        case builtIn(key: String)
        case file(String, line: Int, key: String)
        case commandLine(option: String)

        /// A ``ConfigError`` about the setting: `FILE:LINE: KEY: message`,
        /// `command line: --board: message`, or `built-in default: board: message`.
        public func error(_ message: String) -> ConfigError {
            switch self {
            case .builtIn(let key): ConfigError(file: "built-in default", line: 0, key: key, message: message)
            case .file(let file, let line, let key): ConfigError(file: file, line: line, key: key, message: message)
            case .commandLine(let option): ConfigError(file: "command line", line: 0, key: option, message: message)
            }
        }
    }
}
