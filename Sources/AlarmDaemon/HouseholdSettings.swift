import AlarmAppliance
import AlarmEngine
import AlarmProtocol
import AlarmTime
import FoundationEssentials
import Glibc
import Logging
import Synchronization

extension HouseholdSettings {
    /// The configuration file's values.
    public init(_ configuration: DaemonConfiguration) {
        self.init(
            volumeDB: configuration.appliance.volume, crescendoSeconds: configuration.appliance.crescendo / .seconds(1),
            snoozeSeconds: configuration.defaultSnooze / .seconds(1), autoSilenceSeconds: configuration.engine.autoSilence,
            nightHours: configuration.appliance.nightHours?.description ?? "off",
            lightLeadSeconds: configuration.appliance.sunriseLead / .seconds(1),
            lightAfterStop: configuration.appliance.lightAfterStop.rawValue,
            defaultSound: configuration.appliance.defaultSound ?? HouseholdSettings.builtInTone)
    }

    /// Those read from a file, with what it predates (`nil`) taken from `defaults`.
    func completed(with defaults: HouseholdSettings) -> HouseholdSettings {
        var settings = self
        settings.nightHours = nightHours ?? defaults.nightHours
        settings.lightLeadSeconds = lightLeadSeconds ?? defaults.lightLeadSeconds
        settings.lightAfterStop = lightAfterStop ?? defaults.lightAfterStop
        settings.defaultSound = defaultSound ?? defaults.defaultSound
        return settings
    }

    var crescendo: Duration { .milliseconds(Int64((crescendoSeconds * 1000).rounded())) }

    /// Puts them into the appliance's and the engine's settings.
    public func apply(to appliance: inout ApplianceSettings, _ engine: inout EnginePolicy) {
        apply(to: &appliance)
        engine.autoSilence = autoSilenceSeconds
    }

    /// The appliance's part of them; what a file or client predating a field left `nil` stays as it is.
    func apply(to appliance: inout ApplianceSettings) {
        appliance.volume = volumeDB
        appliance.crescendo = crescendo
        if nightHours != nil { appliance.nightHours = night }
        if let lightLeadSeconds { appliance.sunriseLead = .milliseconds(Int64((lightLeadSeconds * 1000).rounded())) }
        if let after = lightAfterStop.flatMap(ApplianceSettings.LightAfterStop.init(rawValue:)) { appliance.lightAfterStop = after }
        if defaultSound != nil { appliance.defaultSound = defaultSoundName }
    }
}

/// The household settings file, read at start and replaced whole (written, synced, renamed) on
/// each change. A damaged file is set aside and the defaults apply; that is logged.
///
/// A file that exists but could not be read (a failing SD card, `EACCES`) is left as it is: the
/// defaults apply meanwhile, the file is read again at each look and each change, and a change is
/// refused until it has been read, so the household's settings are never replaced unseen.
public final class HouseholdSettingsFile: Sendable {
    private let path: String
    private let directory: String
    private let files: DurableFile
    private let logger: Logger
    private let current: Mutex<Current>
    private let defaults: HouseholdSettings
    private let readAgainAction = Mutex<(@Sendable (HouseholdSettings) -> Void)?>(nil)

    /// How often a file that could not be read is tried again by ``keepReadingUntilRead(clock:)``.
    public static let readRetryInterval: TimeInterval = 30

    private struct Current {
        var settings: HouseholdSettings
        /// Why the file could not be read, while it cannot.
        var unread: StoreError?
    }

    public convenience init(directory: String, defaults: HouseholdSettings, logger: Logger) {
        self.init(directory: directory, defaults: defaults, logger: logger, files: .system)
    }

    /// A settings file read and written through `files`.
    package init(directory: String, defaults: HouseholdSettings, logger: Logger, files: DurableFile) {
        self.directory = directory
        self.files = files
        self.logger = logger
        self.defaults = defaults
        path = directory + "/settings.json"
        var current = Current(settings: defaults)
        do throws(StoreError) {
            current.settings = try Self.read(path, files: files, directory: directory, logger: logger)?.completed(with: defaults) ?? defaults
        } catch {
            current.unread = error
            logger.error("Household settings file could not be read; the configuration's defaults apply until it can be", metadata: [
                "file": "\(path)", "error": "\(error)",
            ])
        }
        self.current = Mutex(current)
    }

    /// The settings in effect (the defaults while the file cannot be read). Reading the file
    /// again here, once it can be, calls the action given to ``whenReadAgain(_:)``.
    public var settings: HouseholdSettings {
        let (settings, readAgain) = current.withLock { current in
            let wasUnread = current.unread != nil
            readAgainIfUnread(&current)
            return (current.settings, wasUnread && current.unread == nil)
        }
        if readAgain, let action = readAgainAction.withLock({ $0 }) { action(settings) }
        return settings
    }

    /// `action` gets the file's settings when a file that could not be read is read: the daemon
    /// puts them into effect, as a change from the page would be.
    public func whenReadAgain(_ action: @escaping @Sendable (HouseholdSettings) -> Void) {
        readAgainAction.withLock { $0 = action }
    }

    /// While the file cannot be read, tries it again every ``readRetryInterval`` on `clock`, so
    /// its settings come into effect without anyone looking at them; returns once it has been
    /// read (at once if it was), or when the task is cancelled.
    public func keepReadingUntilRead(clock: any WallClock) async {
        while readFailure != nil {
            do {
                _ = try await clock.sleep(until: clock.now.addingTimeInterval(Self.readRetryInterval))
            } catch {
                return
            }
            _ = settings
        }
    }

    /// Why the file could not be read, while it cannot.
    public var readFailure: StoreError? { current.withLock { $0.unread } }

    /// Validates, writes and then keeps `settings`, and returns what was kept; nothing changes if
    /// either fails.
    ///
    /// - Throws: ``SettingsError`` for a value out of range, ``HouseholdSettingsUnreadable`` while
    ///   the file cannot be read, or the error that kept the file from being written.
    /// A client that predates a setting (sends none: `nil`) keeps the one in effect.
    @discardableResult
    public func change(to settings: HouseholdSettings) throws -> HouseholdSettings {
        try settings.validate()
        return try current.withLock { current in
            readAgainIfUnread(&current)
            if let unread = current.unread { throw HouseholdSettingsUnreadable(failure: unread) }
            let kept = settings.completed(with: current.settings)
            try files.replace(path, with: Array(try JSONEncoder().encode(kept)), directory: directory)
            current.settings = kept
            return kept
        }
    }

    private func readAgainIfUnread(_ current: inout Current) {
        guard current.unread != nil else { return }
        do throws(StoreError) {
            if let settings = try Self.read(path, files: files, directory: directory, logger: logger) {
                current.settings = settings.completed(with: defaults)
            }
            current.unread = nil
            logger.notice("Household settings file read again", metadata: ["file": "\(path)"])
        } catch {
            current.unread = error
        }
    }

    /// The file's settings; `nil` if there is none, or it is damaged (then it is set aside).
    ///
    /// - Throws: ``StoreError`` when the file exists but could not be read.
    private static func read(
        _ path: String, files: DurableFile, directory: String, logger: Logger
    ) throws(StoreError) -> HouseholdSettings? {
        do {
            guard let bytes = try files.read(path) else { return nil }
            let settings = try JSONDecoder().decode(HouseholdSettings.self, from: Data(bytes))
            try settings.validate()
            return settings
        } catch let error as StoreError where !error.notARegularFile {
            throw error
        } catch {
            _ = files.calls.rename(path, path + ".damaged")
            logger.error("Household settings file is unusable and was set aside; the configuration's defaults apply", metadata: [
                "file": "\(path)", "error": "\(error)",
            ])
            return nil
        }
    }
}

/// A change of the household settings was refused: their file could not be read, and replacing it
/// would lose what it holds.
public struct HouseholdSettingsUnreadable: Error, Hashable, Sendable, CustomStringConvertible {
    public let failure: StoreError

    public var description: String {
        "the settings file could not be read (\(failure.errnoName): \(failure)); changes are refused until it can be, "
            + "so the household's settings are not lost"
    }
}
