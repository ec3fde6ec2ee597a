import AlarmAppliance
import AlarmClient
import AlarmControl
import AlarmDaemon
import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmMQTT
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Glibc
import Logging
import Synchronization
import Testing

/// A clock (engine and appliance on fakes, running, behind a real control server) with its
/// bridge on a real broker, and a listener on that broker that records everything published.
/// The clock's time is manual; the broker and MQTT run in real time.
final class BridgeRig: Sendable {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)

    let directory: TemporaryDirectory
    let clock = ManualWallClock(now: BridgeRig.start)
    let runtime: AlarmRuntime
    let appliance: Appliance
    let audio = FakeAudioOutput()
    let buttons: FakeButtonInput
    /// The sunrise light, on a rig made `withLight`.
    let light = FakeLight()
    private let servers: Mutex<[ControlServer]>
    var server: ControlServer { servers.withLock { $0.last! } }
    let log = LogLines()
    let node: String
    let topics: BridgeTopics
    let configuration: BridgeConfiguration
    private let tasks = Mutex<[Task<Void, Never>]>([])

    init(
        broker: TestBroker, node: String = "bedroom", preAlarm: [Duration] = [], alarmsOf: UInt32? = nil, configurationFile: String? = nil,
        withLight: Bool = false
    ) async throws {
        directory = try TemporaryDirectory()
        self.node = node
        topics = BridgeTopics(nodeID: node)
        let quiet = Logger(label: "bridge-test", factory: { _ in SwiftLogNoOpLogHandler() })
        runtime = try AlarmRuntime(
            configuration: .init(clockTrust: .always, storeDirectory: directory.path + "/engine"), clock: clock,
            timeZones: ManualTimeZoneProvider(.utc), authorizer: FixedAuthorization(.authorized), logger: quiet)
        buttons = FakeButtonInput(clock: clock)
        appliance = Appliance(
            runtime: runtime,
            hardware: ApplianceHardware(
                buttons: buttons, indicator: FakeIndicator(hasColor: false), audio: audio, display: FakeCharacterDisplay(),
                light: withLight ? light : nil),
            clock: clock, logger: quiet)
        let server = Self.makeServer(directory: directory.path, runtime: runtime, appliance: appliance, clock: clock)
        servers = Mutex([server])
        try server.start()
        var configuration = try #require(try BridgeConfiguration.read(
            file: configurationFile, broker: configurationFile == nil ? "mqtt://127.0.0.1:\(broker.port)" : nil,
            socket: directory.path + "/control.sock", hostName: node))
        configuration.preAlarmOffsets = preAlarm
        configuration.alarmOwner = alarmsOf
        self.configuration = configuration
        let (runtime, appliance) = (runtime, appliance)
        tasks.withLock { $0 += [Task { await runtime.run() }, Task { await appliance.run() }] }
    }

    /// alarmd's control socket, as the daemon serves it.
    static func makeServer(directory: String, runtime: AlarmRuntime, appliance: Appliance, clock: ManualWallClock) -> ControlServer {
        let quiet = Logger(label: "bridge-test", factory: { _ in SwiftLogNoOpLogHandler() })
        var configuration = ControlServer.Configuration(socketPath: directory + "/control.sock")
        configuration.buttonPresses = DaemonOperations.buttonPressNames(of: appliance)
        return ControlServer(
            configuration: configuration, runtime: runtime,
            handlers: DaemonOperations.handlers(
                runtime: runtime, appliance: appliance,
                settings: HouseholdSettingsFile(directory: directory, defaults: HouseholdSettings(DaemonConfiguration()), logger: quiet),
                sounds: SoundLibrary(
                    packagedDirectory: directory + "/sounds", householdDirectory: directory + "/household-sounds",
                    reservedFreeBytes: 0, logger: quiet
                ) { [appliance] names, generation in await appliance.householdSoundsChanged(names, generation: generation) },
                status: { [runtime, appliance] viewer in await Self.status(runtime, appliance, viewer) }, board: nil),
            logger: quiet, clock: clock)
    }

    /// alarmd's socket goes away, as when alarmd stops.
    func stopServer() async {
        await server.stop()
    }

    /// alarmd's socket is served again, as by a restarted alarmd (on the same engine).
    func startServer() throws {
        let server = Self.makeServer(directory: directory.path, runtime: runtime, appliance: appliance, clock: clock)
        servers.withLock { $0.append(server) }
        try server.start()
    }

    /// Starts the bridge (a new one each time, as systemd would), hashing `machineID`.
    func startBridge(machineID: String = "0123456789abcdef0123456789abcdef", maximumBackoff: Duration = .seconds(1)) throws {
        var options = MQTTClient.Configuration(
            host: configuration.broker.host, port: configuration.broker.port, clientID: configuration.clientID,
            username: configuration.username, password: configuration.password, caFile: configuration.caFile,
            will: MQTTBridge.will(for: configuration))
        options.maximumBackoff = maximumBackoff
        let bridge = MQTTBridge(
            configuration: configuration, mqtt: try MQTTClient(options), device: ControlClient(path: configuration.socketPath), clock: clock,
            machineID: machineID, bridgeVersion: "test", logger: log.logger)
        tasks.withLock { $0.append(Task { await bridge.run() }) }
    }

    /// Stops the bridge's task (the last started), as SIGTERM does: it says goodbye.
    func stopBridge() async {
        let last = tasks.withLock { $0.removeLast() }
        last.cancel()
        await last.value
    }

    func stop() async {
        for task in tasks.withLock({ $0 }).reversed() {
            task.cancel()
            await task.value
        }
        await server.stop()
    }

    /// `status` as alarmd's daemon reports it, for a board of fakes that all work.
    static func status(_ runtime: AlarmRuntime, _ appliance: Appliance, _ viewer: ClientID?) async -> StatusReport {
        let alarms = await runtime.alarmSummary(for: viewer)
        let parts: [StatusReport.Part] = [.init(name: "sound", state: "ok")] + (appliance.hasLight ? [.init(name: "light", state: "ok")] : [])
        return StatusReport(
            version: "test", board: "simulated", startedAt: start, clockTrusted: true, timeZone: "UTC",
            scope: viewer == nil ? .device : .client, alarms: alarms.alarmCount, alerting: alarms.alertingCount,
            nextAlarm: alarms.nextAlarm?.dueDate, parts: parts, time: await runtime.currentTimeSource(),
            light: await appliance.lightOutput, upcomingAlarms: alarms.upcoming)
    }

    func scheduleWeekly(title: String) async throws -> Alarm.ID {
        let id = Alarm.ID()
        _ = try await runtime.schedule(
            id: id,
            definition: AlarmDefinition(
                schedule: .relative(.init(time: .init(hour: 7, minute: 0), repeats: .weekly([.monday, .friday]))),
                countdownDuration: nil, presentation: AlarmPresentation(alert: .init(title: title))),
            client: ClientID(rawValue: getuid()))
        return id
    }

    func schedule(at date: Date, title: String = "Wake up") async throws -> Alarm.ID {
        let id = Alarm.ID()
        _ = try await runtime.schedule(
            id: id,
            definition: AlarmDefinition(
                schedule: .fixed(date), countdownDuration: .init(preAlert: nil, postAlert: 540),
                presentation: AlarmPresentation(alert: .init(title: title, secondaryButton: .snooze, secondaryButtonBehavior: .countdown))),
            client: ClientID(rawValue: getuid()))
        return id
    }
}

/// A listener on the broker: every message published under `alarmd/#` and `homeassistant/#`,
/// read topic by topic in the order each topic's messages came.
actor BrokerListener {
    let client: MQTTClient
    private var events: AsyncStream<MQTTClient.Event>.Iterator
    private var received: [MQTTClient.Message] = []
    /// How many of each topic's messages ``next(on:accepting:)`` has returned or passed over.
    private var read: [String: Int] = [:]

    init(_ broker: TestBroker, id: String = "listener", username: String? = nil, password: String? = nil, caFile: String? = nil) async throws {
        client = try MQTTClient(.init(
            host: "127.0.0.1", port: Int(broker.port), clientID: id, username: username, password: password, caFile: caFile))
        try client.subscribe("alarmd/#")
        try client.subscribe("homeassistant/#")
        var iterator = client.events().makeAsyncIterator()
        client.start()
        while let event = await iterator.next(), event != .connected {}
        events = iterator
    }

    /// The next message on `topic` (whose payload satisfies `accepting`) after those read before.
    func next(on topic: String, accepting: @Sendable (String) -> Bool = { _ in true }) async -> MQTTClient.Message? {
        while true {
            let onTopic = received.filter { $0.topic == topic }
            var index = read[topic, default: 0]
            while index < onTopic.count {
                index += 1
                if accepting(onTopic[index - 1].text) {
                    read[topic] = index
                    return onTopic[index - 1]
                }
            }
            read[topic] = index
            var iterator = events
            let event = await iterator.next(isolation: #isolation)
            events = iterator
            guard let event else { return nil }
            if case .message(let message) = event { received.append(message) }
        }
    }

    nonisolated func send(_ topic: String, _ payload: String, retained: Bool = false) throws {
        try client.publish(.init(topic: topic, payload: payload, retained: retained))
    }
}

/// The bridge's log lines, and a wait for one.
final class LogLines: Sendable {
    struct Line: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let lines = Mutex<[Line]>([])
    private let feed: AsyncStream<Line>.Continuation
    private let stream: AsyncStream<Line>

    init() {
        (stream, feed) = AsyncStream.makeStream(of: Line.self)
    }

    var logger: Logger {
        Logger(label: "alarm-mqtt") { _ in Handler(sink: self) }
    }

    /// The first line (logged before or after the call) whose message is `message`.
    func waitFor(_ message: String, where matching: @Sendable (Line) -> Bool = { _ in true }) async -> Line? {
        await waitFor { $0.message == message && matching($0) }
    }

    /// The first line (logged before or after the call) that `matching` accepts.
    func waitFor(where matching: @Sendable (Line) -> Bool) async -> Line? {
        if let line = lines.withLock({ $0.first(where: matching) }) { return line }
        for await line in stream where matching(line) { return line }
        return nil
    }

    fileprivate func append(_ line: Line) {
        if getenv("BRIDGE_TEST_LOG") != nil { print("LOG", line.level, line.message, line.metadata) }
        lines.withLock { $0.append(line) }
        feed.yield(line)
    }

    private struct Handler: LogHandler {
        let sink: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            sink.append(Line(level: event.level, message: "\(event.message)", metadata: (event.metadata ?? [:]).mapValues { "\($0)" }))
        }
    }
}
