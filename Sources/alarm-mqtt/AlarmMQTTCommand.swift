import AlarmClient
import AlarmMQTT
import AlarmTime
import ArgumentParser
import BuildVersion
import FoundationEssentials
import Glibc
import JournalLogging
import LinuxSupport
import Logging
import TOMLConfig
import UnixSignals

/// `alarm-mqtt`: the clock on the household's MQTT broker (Home Assistant), a client of alarmd's
/// socket in a process and user of its own.
@main
struct AlarmMQTTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarm-mqtt",
        abstract: "Show the alarm clock on an MQTT broker and take the household's commands from it.",
        discussion: """
            The clock appears in Home Assistant by itself (MQTT discovery): its state, the next \
            alarm, the time source, STOP and SNOOZE buttons and presses, the volume and snooze \
            length, the sunrise light, events before each alarm at the times [mqtt] pre_alarm lists, and \
            switches (on, skips its next day) for the alarms of the user [mqtt] alarms_of names. \
            Every change reaches the broker as it happens; idle, only MQTT's keep-alive is sent. \
            From the broker it takes STOP, SNOOZE, the volume, the snooze length, the light and \
            those switches (whoever may publish to alarmd/NODE/cmd/# may do all of these: restrict it \
            on the broker), never anything that creates an alarm. It reaches alarmd through its control socket as an administrator \
            (the alarmd-admin group); if it stops, alarms still ring. Off until a broker is \
            configured (--broker, or [mqtt] broker in the configuration file).
            """,
        version: AlarmdVersion.current
    )

    static let defaultConfiguration = "/etc/alarmd/alarm-mqtt.toml"
    /// `EX_CONFIG`: the unit does not restart a bridge that has nothing to do or a configuration
    /// that is wrong (the journal says why).
    static let notConfigured: Int32 = 78

    @Option(help: ArgumentHelp("The broker: mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (TLS); over the file's.", valueName: "URL"))
    var broker: String?

    @Option(help: ArgumentHelp("alarmd's control socket; over the file's.", valueName: "PATH"))
    var socket: String?

    @Option(help: ArgumentHelp("The configuration file ([mqtt]).", valueName: "FILE"))
    var config: String?

    @Option(name: .customLong("log-level"), help: ArgumentHelp("The lowest level logged.", valueName: "LEVEL"))
    var logLevel: Logger.Level = .info

    func run() async throws {
        let logger = Logger.journal("alarm-mqtt", level: logLevel)
        let file = config ?? (access(Self.defaultConfiguration, F_OK) == 0 ? Self.defaultConfiguration : nil)
        let read: BridgeConfiguration?
        do {
            read = try BridgeConfiguration.read(file: file, broker: broker, socket: socket, hostName: Self.hostName())
        } catch {
            // EX_CONFIG, as for no broker: the unit does not start it again until someone fixes it.
            logger.error("The configuration is wrong; alarm-mqtt does not start", metadata: ["error": "\(error)"])
            throw ExitCode(Self.notConfigured)
        }
        guard let configuration = read else {
            logger.notice("No broker configured ([mqtt] broker in \(file ?? Self.defaultConfiguration), or --broker): nothing to do")
            throw ExitCode(Self.notConfigured)
        }
        for warning in configuration.warnings { logger.warning("\(warning)") }
        let mqtt: MQTTClient
        do {
            var options = MQTTClient.Configuration(
                host: configuration.broker.host, port: configuration.broker.port, clientID: configuration.clientID,
                username: configuration.username, password: configuration.password, caFile: configuration.caFile,
                will: MQTTBridge.will(for: configuration))
            options.keepAlive = 60
            mqtt = try MQTTClient(options)
        } catch {
            logger.error("The broker's settings are refused; alarm-mqtt does not start", metadata: ["error": "\(error)"])
            throw ExitCode(Self.notConfigured)
        }
        let device = ControlClient(path: configuration.socketPath)
        let bridge = MQTTBridge(
            configuration: configuration, mqtt: mqtt, device: device, clock: SystemWallClock(), machineID: Self.machineID(logger: logger),
            bridgeVersion: AlarmdVersion.current, logger: logger)
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        logger.notice("Bridging the clock to the broker", metadata: [
            "broker": "\(configuration.broker)", "node": "\(configuration.nodeID)", "socket": "\(configuration.socketPath)",
        ])
        let running = Task { await bridge.run() }
        for await _ in signals { break }
        running.cancel()
        await running.value
        device.close()
    }

    /// The host's name (the default node id), or `alarmd`.
    static func hostName() -> String {
        machineHostName() ?? "alarmd"
    }

    /// systemd's machine id, hashed into the entities' unique ids (never published itself); the
    /// host name where there is none (a container).
    static func machineID(logger: Logger) -> String {
        if let text = try? ConfigFile.readText("/etc/machine-id"), let line = text.split(separator: "\n").first, !line.isEmpty {
            return String(line)
        }
        logger.warning("No /etc/machine-id; the clock's unique ids come from its host name")
        return hostName()
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
