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
        let bootstrapLogger = Self.logger(level: options.level, output: output)

        // 1. Configuration and profile: all checked before any hardware is opened.
        var configuration: DaemonConfiguration
        let profile: BoardProfile
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
            configuration = loaded.configuration
            let board = try configuration.loadBoard()
            for warning in board.warnings {
                bootstrapLogger.warning("Board profile key not understood; ignored", metadata: ["board.warning": "\(warning)"])
            }
            profile = board.profile
        } catch {
            bootstrapLogger.critical("Configuration error; not starting: \(error)")
            throw ExitCode(Self.configurationError)
        }
        let logger = Self.logger(level: configuration.logLevel, output: output)
        let notifier = Self.notifier(logger: logger)

        // 2. The state directory (systemd's StateDirectory= makes it) is the store's to make and
        //    check: one that cannot be used is logged and shown as a storage fault, and the clock
        //    starts anyway, since a daemon that exits is restarted forever and rings nothing.

        // 3. The board's parts. Missing ones are logged and retried by their backends; the
        //    alarm still rings on whatever works.
        let clock = SystemWallClock()
        let board = await DaemonBoard.open(profile, clock: clock, logger: logger)

        // 4. Engine and appliance, with the household's settings from the phone page (the
        //    configuration file gives their defaults).
        let household = HouseholdSettingsFile(
            directory: configuration.stateDirectory, defaults: HouseholdSettings(configuration), logger: logger)
        household.settings.apply(to: &configuration.appliance, &configuration.engine)
        let prompter = DevicePrompter(userName: Self.userName(of:))
        let runtime: AlarmRuntime
        do {
            runtime = try AlarmRuntime(
                configuration: .init(
                    policy: configuration.engine, clockTrust: configuration.clockTrust,
                    storeDirectory: configuration.stateDirectory),
                clock: clock, timeZones: SystemTimeZoneProvider(), authorizer: prompter, logger: logger)
        } catch {
            logger.critical("Alarm engine cannot start", metadata: ["error": "\(error)"])
            throw ExitCode(73)
        }
        let appliance = Appliance(
            runtime: runtime, hardware: board.hardware, clock: clock, settings: configuration.appliance, logger: logger)
        prompter.attach(appliance)
        // A settings file that could not be read (a card not ready at boot) comes into effect once it is.
        household.whenReadAgain { settings in
            Task { await DaemonOperations.putIntoEffect(settings, appliance: appliance, runtime: runtime) }
        }
        if let error = board.soundProblemAtStart {
            // Missing at start: the LED and the clock screen say so before any alarm needs it.
            await appliance.soundUnavailable(error)
        }

        // 5. The control socket.
        var control = ControlServer.Configuration(
            socketPath: configuration.socketPath,
            socketGroupID: ControlAdministrators.groupID(named: configuration.socketGroup),
            administrators: ControlAdministrators(groupID: ControlAdministrators.groupID(named: configuration.adminGroup)))
        control.maximumClients = configuration.control.maximumClients
        control.maximumClientsPerUser = configuration.control.maximumClientsPerUser
        control.maximumAdministratorClients = configuration.control.maximumAdministratorClients
        control.idleTimeout = configuration.control.idleTimeout
        let status = DaemonStatus(runtime: runtime, appliance: appliance, board: board, profile: profile)
        let server = ControlServer(
            configuration: control, runtime: runtime,
            handlers: DaemonOperations.handlers(
                runtime: runtime, appliance: appliance, settings: household, status: status.report(alarmsOf:),
                board: board.selfTestBoard(profile)),
            logger: logger)
        do {
            try server.start()
        } catch {
            logger.critical("Control socket cannot be opened", metadata: ["error": "\(error)"])
            await board.close()
            throw ExitCode(71)
        }

        // 6. Run until SIGTERM or SIGINT.
        var services: [any Service] = [
            TaskService { await runtime.run() },
            TaskService { await appliance.run() },
            TaskService {
                await UntilCancelled.wait()
                // Stopped before the appliance: answer its questions first, or a client waiting
                // for a press (a phone pairing) would hold the socket's shutdown for a minute.
                await appliance.dismissPrompts()
                await server.stop()
            },
            TaskService {
                await household.keepReadingUntilRead(clock: clock)
                await UntilCancelled.wait()
            },
            TaskService {
                await status.followParts(logger: logger)
                await UntilCancelled.wait()  // a service that returns would stop the whole group
            },
        ]
        if let interval = Self.watchdogInterval(logger: logger) {
            let pinger = WatchdogPinger(
                notifier: notifier, interval: interval, logger: logger,
                checks: WatchdogPinger.Check.alarmPath(runtime: runtime, appliance: appliance))
            services.append(TaskService { await pinger.run() })
        }
        let socketPath = configuration.socketPath
        services.append(TaskService {
            // Ready once everything above runs: tell systemd, and say what the device is doing.
            Self.send(notifier, [.ready, .status(await status.summary())], logger: logger)
            logger.notice("alarmd ready", metadata: [
                "board": "\(profile.name)", "control.socket": "\(socketPath)",
                "version": "\(AlarmdVersion.current)",
            ])
            await UntilCancelled.wait()
        })
        let group = ServiceGroup(configuration: .init(
            services: services.map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        do {
            try await group.run()
        } catch {
            logger.error("Service ended with an error", metadata: ["error": "\(error)"])
        }
        Self.send(notifier, [.stopping], logger: logger)
        await appliance.shutdown()
        await board.close()
        logger.notice("alarmd stopped")
    }

    // MARK: - Pieces

    static func logger(level: Logger.Level, output: JournalOutput) -> Logger {
        var logger = Logger(label: "alarmd", factory: { JournalLogHandler(label: $0, output: output) })
        logger.logLevel = level
        return logger
    }

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

/// A service that runs `body` until it returns or graceful shutdown cancels it.
struct TaskService: Service {
    let body: @Sendable () async -> Void

    init(_ body: @escaping @Sendable () async -> Void) {
        self.body = body
    }

    func run() async {
        await cancelWhenGracefulShutdown {
            await body()
        }
    }
}

/// A service's wait for nothing: it returns only when the group cancels it.
enum UntilCancelled {
    static func wait() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        for await _ in stream {}
        withExtendedLifetime(continuation) {}
    }
}
