import AlarmALSA
import AlarmAppliance
import AlarmBoard
import AlarmControl
import AlarmDaemon
import AlarmEngine
import AlarmGPIO
import AlarmHardware
import AlarmKitCore
import AlarmLCD
import AlarmModel
import AlarmProtocol
import AlarmSimulator
import AlarmTime
import ArgumentParser
import BuildVersion
import FoundationEssentials
import Glibc
import JournalLogging
import LinuxSupport
import Logging
import ServiceLifecycle

/// `alarmd` as the device's service: the engine, the appliance on the board's parts and the
/// control socket, under swift-service-lifecycle. SIGTERM (or SIGINT) shuts it down in order:
/// the socket closes, the appliance stops the sound and leaves the LED off and the display
/// blank, the GPIO lines are released, the engine stops (its store is written on every change).
///
/// Nothing touches the hardware before the configuration and the board profile have been read
/// without error: a bad file stops start-up with one line, `FILE:LINE: KEY: message`, and exit
/// status 78.
struct DaemonMode {
    let options: Alarmd

    /// Exit status for a bad configuration or profile (`EX_CONFIG`).
    static let configurationError: Int32 = 78

    func run() async throws {
        let output = JournalOutput.standardError
        let (configuration, profile) = try loadConfiguration(output: output)
        let logger = Logger.journal("alarmd", level: configuration.logLevel, output: output)
        let notifier = Self.notifier(logger: logger)

        // The state directory (systemd's StateDirectory= makes it) is the store's to make and
        // check: one that cannot be used is logged and shown as a storage fault, and the clock
        // starts anyway, since a daemon that exits is restarted forever and rings nothing.
        // The board's parts open after the household's settings are read; missing ones are
        // logged and retried by their backends, and the alarm still rings on whatever works.
        let clock = SystemWallClock()
        if let code = SystemClocks.synchronizationReadError {
            logger.warning(
                "The kernel's NTP state cannot be read: the time source is never ntp, and a phone's time is never refused for NTP's",
                metadata: ["errno": "\(code)", "hint": "the unit's SystemCallFilter must allow clock_adjtime"])
        }
        let prompter = DevicePrompter(userName: Self.userName(of:))
        let device: AlarmDevice<DaemonBoard>
        do {
            device = try await AlarmDevice(
                configuration: configuration, clock: clock, timeZones: SystemTimeZoneProvider(), authorizer: prompter,
                logger: logger, clockReadings: SystemClockReadings().read
            ) { settings in
                await DaemonBoard.open(profile, volume: settings.volume, clock: clock, logger: logger)
            }
        } catch {
            logger.critical("Alarm engine cannot start", metadata: ["error": "\(error)"])
            throw ExitCode(73)
        }
        prompter.attach(device.appliance)

        let status = DaemonStatus(device: device, boardName: profile.name)
        let server = device.controlServer(
            Self.controlConfiguration(configuration), status: status.report(alarmsOf:), selfTest: device.board.selfTestBoard(profile),
            clockSetter: SystemWallClockSetting())
        do {
            try server.start()
        } catch {
            logger.critical("Control socket cannot be opened", metadata: ["error": "\(error)"])
            await device.board.close()
            throw ExitCode(71)
        }
        let services = device.services(control: server)
            + daemonOnlyServices(status: status, notifier: notifier, device: device, profile: profile, logger: logger)
        await runUntilSignalled(services, logger: logger)
        Self.send(notifier, [.stopping], logger: logger)
        await device.shutdown()
        logger.notice("alarmd stopped")
    }

    /// The configuration and the board profile, all checked before any hardware is opened.
    private func loadConfiguration(output: JournalOutput) throws -> (DaemonConfiguration, BoardProfile) {
        let bootstrapLogger = Logger.journal("alarmd", level: options.level, output: output)
        do {
            var loaded = try DaemonConfiguration.load(path: options.config)
            try loaded.configuration.apply(DaemonConfiguration.Overrides(
                board: options.board, stateDirectory: options.stateDir, socketPath: options.socket,
                logLevel: options.logLevel.flatMap(Logger.Level.init(rawValue:))))
            for warning in loaded.warnings {
                bootstrapLogger.warning("Configuration key not understood; ignored", metadata: ["config.warning": "\(warning)"])
            }
            if loaded.file == nil {
                bootstrapLogger.notice("No configuration file; using the defaults", metadata: ["config.file": "\(DaemonConfiguration.defaultPath)"])
            }
            let board = try loaded.configuration.loadBoard()
            for warning in board.warnings {
                bootstrapLogger.warning("Board profile key not understood; ignored", metadata: ["board.warning": "\(warning)"])
            }
            return (loaded.configuration, board.profile)
        } catch {
            bootstrapLogger.critical("Configuration error; not starting: \(error)")
            throw ExitCode(Self.configurationError)
        }
    }

    static func controlConfiguration(_ configuration: DaemonConfiguration) -> ControlServer.Configuration {
        var control = ControlServer.Configuration(
            socketPath: configuration.socketPath,
            socketGroupID: ControlAdministrators.groupID(named: configuration.socketGroup),
            administrators: ControlAdministrators(groupID: ControlAdministrators.groupID(named: configuration.adminGroup)))
        control.maximumClients = configuration.control.maximumClients
        control.maximumClientsPerUser = configuration.control.maximumClientsPerUser
        control.maximumAdministratorClients = configuration.control.maximumAdministratorClients
        control.idleTimeout = configuration.control.idleTimeout
        return control
    }

    /// What only the service runs beside the device: the parts' log, systemd's watchdog, and
    /// the readiness notice once everything before it runs.
    private func daemonOnlyServices(
        status: DaemonStatus, notifier: SystemdNotifier, device: AlarmDevice<DaemonBoard>, profile: BoardProfile,
        logger: Logger
    ) -> [any Service] {
        var services: [any Service] = [
            TaskService {
                await status.followParts(logger: logger)
                await UntilCancelled.wait()
            },
        ]
        if let interval = Self.watchdogInterval(logger: logger) {
            let pinger = WatchdogPinger(
                notifier: notifier, interval: interval, logger: logger,
                checks: WatchdogPinger.Check.alarmPath(runtime: device.runtime, appliance: device.appliance))
            services.append(TaskService { await pinger.run() })
        }
        let socketPath = device.configuration.socketPath
        services.append(TaskService {
            // Ready once everything above runs: tell systemd, and say what the device is doing.
            Self.send(notifier, [.ready, .status(await status.summary())], logger: logger)
            logger.notice("alarmd ready", metadata: [
                "board": "\(profile.name)", "control.socket": "\(socketPath)",
                "version": "\(AlarmdVersion.current)",
            ])
            await UntilCancelled.wait()
        })
        return services
    }

    /// Runs `services` until SIGTERM or SIGINT. The group shuts them down in reverse order: the
    /// socket closes while the engine and the appliance still run.
    private func runUntilSignalled(_ services: [any Service], logger: Logger) async {
        let group = ServiceGroup(configuration: .init(
            services: services.map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        do {
            try await group.run()
        } catch {
            logger.error("Service ended with an error", metadata: ["error": "\(error)"])
        }
    }

    // MARK: - Pieces

    static func notifier(logger: Logger) -> SystemdNotifier {
        do {
            return try SystemdNotifier(environment: SystemdNotifier.processEnvironment())
        } catch {
            logger.warning("NOTIFY_SOCKET not usable; systemd will not hear from alarmd", metadata: ["error": "\(error)"])
            return SystemdNotifier(address: nil)
        }
    }

    static func watchdogInterval(logger: Logger) -> Duration? {
        do {
            return try SystemdNotifier.watchdogInterval(environment: SystemdNotifier.processEnvironment())
        } catch {
            logger.warning("WATCHDOG_USEC not usable; no watchdog pings", metadata: ["error": "\(error)"])
            return nil
        }
    }

    static func send(_ notifier: SystemdNotifier, _ states: [SystemdNotifier.State], logger: Logger) {
        do {
            try notifier.send(states)
        } catch {
            logger.warning("systemd notification not delivered", metadata: ["error": "\(error)"])
        }
    }

    /// The login name of a client, for the authorization prompt; the uid if it has none.
    @Sendable static func userName(of client: ClientID) -> String {
        UserNames.name(of: client.rawValue) ?? "uid \(client.rawValue)"
    }
}
