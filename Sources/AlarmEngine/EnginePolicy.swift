import FoundationEssentials

/// The device's decisions where AlarmKit is silent (`ALARMKIT.md`, "What a device must decide").
///
/// Every value has the documented default; the daemon's configuration file overrides them.
public struct EnginePolicy: Codable, Hashable, Sendable {
    /// How late an alarm may still ring after its fire time passed while the device was off or the
    /// clock jumped over it. Later than this it is recorded as missed. Default 30 minutes.
    public var missedAlarmGrace: TimeInterval
    /// How long an unanswered alert rings before it stops and counts as missed. `0` rings until
    /// stopped. Default 15 minutes.
    public var autoSilence: TimeInterval
    /// The device-wide limit on alarms, all clients together. Default 1,000.
    public var maximumAlarms: Int
    /// The most alarms one client may keep, so that no single user can use up the device's
    /// limit and leave the others unable to set one. Default 250.
    public var maximumAlarmsPerClient: Int
    /// How many missed-alarm records are kept for the display; the oldest go first. Default 50.
    public var missedHistoryLimit: Int

    public init(
        missedAlarmGrace: TimeInterval = 30 * 60,
        autoSilence: TimeInterval = 15 * 60,
        maximumAlarms: Int = 1_000,
        maximumAlarmsPerClient: Int = 250,
        missedHistoryLimit: Int = 50
    ) {
        self.missedAlarmGrace = missedAlarmGrace
        self.autoSilence = autoSilence
        self.maximumAlarms = maximumAlarms
        self.maximumAlarmsPerClient = maximumAlarmsPerClient
        self.missedHistoryLimit = missedHistoryLimit
    }

    public static let `default` = EnginePolicy()

    /// Checks the values; the message names the bad one.
    public func validate() throws(EngineConfigurationError) {
        guard missedAlarmGrace.isFinite, missedAlarmGrace >= 0 else {
            throw EngineConfigurationError("missedAlarmGrace must be 0 or more seconds, not \(missedAlarmGrace)")
        }
        guard autoSilence.isFinite, autoSilence >= 0 else {
            throw EngineConfigurationError("autoSilence must be 0 (ring until stopped) or more seconds, not \(autoSilence)")
        }
        guard maximumAlarms >= 1 else {
            throw EngineConfigurationError("maximumAlarms must be at least 1, not \(maximumAlarms)")
        }
        guard maximumAlarmsPerClient >= 1 else {
            throw EngineConfigurationError("maximumAlarmsPerClient must be at least 1, not \(maximumAlarmsPerClient)")
        }
        guard missedHistoryLimit >= 1 else {
            throw EngineConfigurationError("missedHistoryLimit must be at least 1, not \(missedHistoryLimit)")
        }
    }
}

/// A policy or setting the engine cannot run with.
public struct EngineConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
