import AlarmAppliance
import AlarmEngine
import FoundationEssentials
import Glibc
import Logging
import Synchronization

/// The settings the household changes from the phone page: the alarm volume, its crescendo,
/// the snooze offered for new alarms and how long an unanswered alert rings. Kept in the state
/// directory (`settings.json`); the configuration file gives their defaults.
public struct HouseholdSettings: Codable, Hashable, Sendable {
    public var volumeDB: Double
    public var crescendoSeconds: Double
    public var snoozeSeconds: Double
    public var autoSilenceSeconds: Double

    public init(volumeDB: Double, crescendoSeconds: Double, snoozeSeconds: Double, autoSilenceSeconds: Double) {
        self.volumeDB = volumeDB
        self.crescendoSeconds = crescendoSeconds
        self.snoozeSeconds = snoozeSeconds
        self.autoSilenceSeconds = autoSilenceSeconds
    }

    /// The configuration file's values.
    public init(_ configuration: DaemonConfiguration) {
        self.init(
            volumeDB: configuration.appliance.volume, crescendoSeconds: configuration.appliance.crescendo / .seconds(1),
            snoozeSeconds: configuration.defaultSnooze / .seconds(1), autoSilenceSeconds: configuration.engine.autoSilence)
    }

    /// The same ranges as the configuration file's keys; the message names the bad one.
    public func validate() throws(SettingsError) {
        func check(_ value: Double, _ range: ClosedRange<Double>, _ name: String) throws(SettingsError) {
            guard value.isFinite, range.contains(value) else {
                throw SettingsError(description: "\(name) must be from \(range.lowerBound) to \(range.upperBound), not \(value)")
            }
        }
        try check(volumeDB, -60...0, "volumeDB")
        try check(crescendoSeconds, 0...600, "crescendoSeconds")
        try check(snoozeSeconds, 1...86_400, "snoozeSeconds")
        try check(autoSilenceSeconds, 0...86_400, "autoSilenceSeconds")
    }

    var crescendo: Duration { .milliseconds(Int64(crescendoSeconds * 1000)) }

    /// Puts them into the appliance's and the engine's settings.
    public func apply(to appliance: inout ApplianceSettings, _ engine: inout EnginePolicy) {
        appliance.volume = volumeDB
        appliance.crescendo = crescendo
        engine.autoSilence = autoSilenceSeconds
    }
}

public struct SettingsError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
}

/// The household settings file, read at start and replaced whole (written, synced, renamed) on
/// each change. A damaged file is set aside and the defaults apply; that is logged.
public final class HouseholdSettingsFile: Sendable {
    private let path: String
    private let directory: String
    private let files: DurableFile
    private let current: Mutex<HouseholdSettings>

    public convenience init(directory: String, defaults: HouseholdSettings, logger: Logger) {
        self.init(directory: directory, defaults: defaults, logger: logger, files: .system)
    }

    /// A settings file read and written through `files`.
    package init(directory: String, defaults: HouseholdSettings, logger: Logger, files: DurableFile) {
        self.directory = directory
        self.files = files
        path = directory + "/settings.json"
        var settings = defaults
        do {
            if let bytes = try files.read(path) {
                settings = try JSONDecoder().decode(HouseholdSettings.self, from: Data(bytes))
                try settings.validate()
            }
        } catch {
            _ = files.calls.rename(path, path + ".damaged")
            logger.error("Household settings file is unusable and was set aside; the configuration's defaults apply", metadata: [
                "file": "\(path)", "error": "\(error)",
            ])
            settings = defaults
        }
        current = Mutex(settings)
    }

    public var settings: HouseholdSettings { current.withLock { $0 } }

    /// Validates, writes and then keeps `settings`; nothing changes if either fails.
    public func change(to settings: HouseholdSettings) throws {
        try settings.validate()
        let bytes = try JSONEncoder().encode(settings)
        try current.withLock { current in
            try files.replace(path, with: Array(bytes), directory: directory)
            current = settings
        }
    }
}
