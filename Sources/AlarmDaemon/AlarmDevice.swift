import AlarmAppliance
import AlarmControl
import AlarmEngine
import AlarmHardware
import AlarmModel
import AlarmProtocol
import AlarmSoundFile
import LinuxSupport
import AlarmTime
import Logging
import ServiceLifecycle

/// The parts a device is built on, opened by the service's board opener (backends, or fakes on
/// the simulated board) or by a test.
public protocol DeviceBoard: Sendable {
    /// The parts the appliance drives.
    var hardware: ApplianceHardware { get }
    /// Why the sound device did not open when the board was opened (`nil`: it did); the
    /// appliance shows it until a playback works.
    var soundProblemAtStart: HardwareError? { get }
    /// The dB range of the mixer control the alarm volume is set on, when the board has one and
    /// it answered at start: volume percentages then span it (``VolumePercent/scale(forCard:)``).
    var volumeControlRange: ClosedRange<Double>? { get }
    /// Releases what the board holds (the GPIO lines, the LED left off). Called once, last.
    func close() async
}

extension DeviceBoard {
    public var volumeControlRange: ClosedRange<Double>? { nil }
}

/// The device assembled from a board, a clock and a state directory: the household's settings
/// (the settings file, its defaults from the configuration), the engine and the appliance on the
/// board's parts. The service, the simulator and the scenario runner are built by it alike.
///
/// The household's settings are read before the board is opened, so a board with a volume
/// control sets the card to the household's volume, not the configuration file's.
///
/// ```swift
/// let device = try await AlarmDevice(
///     configuration: configuration, clock: SystemWallClock(), timeZones: SystemTimeZoneProvider(),
///     authorizer: prompter, logger: logger) { settings in await MyBoard.open(volume: settings.volume) }
/// let group = ServiceGroup(configuration: .init(services: device.services(control: server), logger: logger))
/// try await group.run()
/// await device.shutdown()
/// ```
///
/// A test or the scenario runner may drive ``appliance`` and ``runtime`` step by step instead
/// of running ``services(control:)``.
public final class AlarmDevice<Board: DeviceBoard>: Sendable {
    public let board: Board
    public let household: HouseholdSettingsFile
    public let runtime: AlarmRuntime
    public let appliance: Appliance
    /// The package's sounds and the household's own (`sounds/` in the state directory).
    public let sounds: SoundLibrary
    public let clock: any WallClock
    /// The configuration with the household's settings in effect at start.
    public let configuration: DaemonConfiguration
    /// What the machine says of its clock, for the engine's time source and `setTime`.
    let clockReadings: (@Sendable () -> ClockReadings)?
    let logger: Logger

    /// Reads the household's settings, opens the board with them in effect and builds the
    /// engine and the appliance on it. `clockReadings` tells the engine where the clock's time
    /// came from (``SystemClockReadings`` on a board; `nil` in scenarios, which have no machine).
    ///
    /// - Throws: the engine's ``StoreError`` when its store directory cannot be used at all.
    ///   The board is closed again before it is thrown.
    public init(
        configuration: DaemonConfiguration, clock: any WallClock, timeZones: any TimeZoneProvider,
        authorizer: any AuthorizationPrompter, logger: Logger,
        clockReadings: (@Sendable () -> ClockReadings)? = nil,
        openBoard: (ApplianceSettings) async -> Board
    ) async throws {
        var configuration = configuration
        let household = HouseholdSettingsFile(
            directory: configuration.stateDirectory, defaults: HouseholdSettings(configuration), logger: logger)
        household.settings.apply(to: &configuration.appliance, &configuration.engine)
        let householdSounds = configuration.stateDirectory + "/sounds"
        configuration.appliance.householdSoundsDirectory = householdSounds
        configuration.appliance.householdSounds = SoundLibrary.names(in: householdSounds)
        let board = await openBoard(configuration.appliance)
        let runtime: AlarmRuntime
        do {
            var engine = AlarmRuntime.Configuration(
                policy: configuration.engine, clockTrust: configuration.clockTrust, storeDirectory: configuration.stateDirectory)
            engine.clockReadings = clockReadings
            runtime = try AlarmRuntime(
                configuration: engine,
                clock: clock, timeZones: timeZones, authorizer: authorizer, logger: logger)
        } catch {
            await board.close()
            throw error
        }
        let appliance = Appliance(
            runtime: runtime, hardware: board.hardware, clock: clock, settings: configuration.appliance, logger: logger)
        // A settings file that could not be read (a card not ready at boot) comes into effect once it is.
        household.whenReadAgain { settings in
            Task { await DaemonOperations.putIntoEffect(settings, appliance: appliance, runtime: runtime) }
        }
        sounds = SoundLibrary(
            packagedDirectory: configuration.appliance.soundsDirectory, householdDirectory: householdSounds, logger: logger
        ) { names, generation in await appliance.householdSoundsChanged(names, generation: generation) }
        await sounds.clearAbandonedUploads(all: true)
        (self.board, self.household, self.runtime, self.appliance) = (board, household, runtime, appliance)
        (self.clock, self.configuration, self.clockReadings, self.logger) = (clock, configuration, clockReadings, logger)
        if let problem = board.soundProblemAtStart {
            // Missing at start: the LED and the clock screen say so before any alarm needs it.
            await appliance.soundUnavailable(problem)
        }
    }

    /// The device's parts as services, for one `ServiceGroup`: the engine, the appliance, the
    /// control socket (when there is one) and the settings file's re-reading. On graceful
    /// shutdown the socket's prompts are answered and the socket closed first, while the engine
    /// and the appliance still run; ``shutdown()`` finishes the rest.
    public func services(control: ControlServer?) -> [any Service] {
        let (runtime, appliance, household, clock) = (runtime, appliance, household, clock)
        var services: [any Service] = [
            TaskService { await runtime.run() },
            TaskService { await appliance.run() },
            TaskService {
                await household.keepReadingUntilRead(clock: clock)
                await UntilCancelled.wait()
            },
        ]
        if let control {
            services.append(TaskService {
                await UntilCancelled.wait()
                // Stopped before the appliance: answer its questions first, or a client waiting
                // for a press (a phone pairing) would hold the socket's shutdown for a minute.
                await appliance.dismissPrompts()
                await control.stop()
            })
        }
        return services
    }

    /// The control socket on this device, answering the engine's operations and the daemon's
    /// own (``DaemonOperations/handlers(runtime:appliance:settings:sounds:volumeScale:checkSound:status:board:time:)``): `status`
    /// from `status`, `selfTest` where the board's parts can be checked (`selfTest`), and
    /// `setTime` where the clock can be set (`clockSetter`) and the machine read.
    public func controlServer(
        _ configuration: ControlServer.Configuration, status: (@Sendable (ClientID?) async -> StatusReport)?,
        selfTest: DaemonOperations.SelfTestBoard?, clockSetter: (any WallClockSetting)? = nil
    ) -> ControlServer {
        // `setTime` reads the machine as the engine does.
        let time = clockSetter.flatMap { setter in clockReadings.map { DaemonOperations.TimeSetting(setter: setter, readings: $0) } }
        var configuration = configuration
        if configuration.buttonPresses == nil { configuration.buttonPresses = DaemonOperations.buttonPressNames(of: appliance) }
        if configuration.soundCheck == nil {
            let sounds = sounds
            configuration.soundCheck = { name in
                let path = await sounds.path(of: name)
                // Decoding a file's opening takes milliseconds to tens of them: a thread of its own.
                return await DetachedThread.run { () -> String? in
                    do throws(SoundFileError) {
                        _ = try SoundFileReader.check(path)
                        return nil
                    } catch {
                        return error.reason
                    }
                }
            }
        }
        let handlers = DaemonOperations.handlers(
            runtime: runtime, appliance: appliance, settings: household, sounds: sounds,
            volumeScale: VolumePercent.scale(forCard: board.volumeControlRange), checkSound: configuration.soundCheck,
            status: status, board: selfTest, time: time)
        return ControlServer(configuration: configuration, runtime: runtime, handlers: handlers, logger: logger)
    }

    /// Leaves the device dark and silent (sound stopped, LED off, display blank), then releases
    /// the board. Called after the services have stopped.
    public func shutdown() async {
        await appliance.shutdown()
        await board.close()
    }
}
