import AlarmClient
import AlarmModel
import AlarmProtocol
import AlarmTime
import FoundationEssentials
import Logging
import Synchronization

/// The clock on an MQTT broker: a client of alarmd's control socket on one side, of the broker
/// on the other. It announces the clock to Home Assistant (device discovery), publishes its
/// states whenever alarmd reports a change (retained, QoS 1), sends the household's pre-alarm
/// events, and carries out the commands it allows (``BridgeCommand``), logging each with its topic.
///
/// Nothing here is on the path of an alarm: alarmd rings and STOP silences whether the bridge
/// runs, hangs or has no broker.
public actor MQTTBridge {
    enum Input: Sendable {
        case mqtt(MQTTClient.Event)
        /// alarmd reported a change (or the bridge starts, or retries an alarmd it could not reach).
        case deviceChanged
        /// The connection to alarmd was lost (alarmd stopped or restarted).
        case alarmdLost
        /// A button of the clock was pressed (`stop`, `snooze`).
        case buttonPressed(String)
        /// A pre-alarm offset before the alarm due at `alarmAt` has come.
        case preAlarm(offset: Duration, alarmAt: Date)
    }

    let configuration: BridgeConfiguration
    let topics: BridgeTopics
    let mqtt: MQTTClient
    let device: ControlClient
    let clock: any WallClock
    let logger: Logger
    let machineID: String
    /// When the bridge was made: pre-alarm moments before it are not its to send.
    let startedAt: Date
    let bridgeVersion: String
    /// How long after a failed look at alarmd it looks again.
    let retryInterval: Duration

    var feed: AsyncStream<Input>.Continuation?
    /// How many `.deviceChanged` wait in the feed: a burst of changes (a script setting twenty
    /// alarms) is read once, by the last of them.
    let pendingLooks = PendingLooks()

    final class PendingLooks: Sendable {
        let count = Atomic<Int>(0)
    }
    var brokerConnected = false
    /// Why the last attempt to connect failed, so that a failure that repeats is logged once.
    var lastBrokerFailure: String?
    /// Whether alarmd answered the last look; `nil` before the first.
    var alarmdReachable: Bool?
    var identity: ClockIdentity?
    /// Whether the clock has a sunrise light (a `light` part in its status).
    var hasLight = false
    var states: ClockStates?
    /// The payload last published on each retained topic since the broker connection began.
    var published: [String: String] = [:]
    var publishedDiscovery: [UInt8]?
    /// The alarms the last discovery announced: one gone is removed from Home Assistant.
    var announcedAlarms: [HomeAssistantDiscovery.Alarm] = []
    var retry: Task<Void, Never>?
    var preAlarmWait: Task<Void, Never>?
    /// The pre-alarm events sent, as the alarm's time and the offset: each is sent once.
    var sentPreAlarms: Set<PreAlarm> = []

    struct PreAlarm: Hashable {
        var alarmAt: Date
        var offset: Duration
    }

    public init(
        configuration: BridgeConfiguration, mqtt: MQTTClient, device: ControlClient, clock: any WallClock, machineID: String,
        bridgeVersion: String, retryInterval: Duration = .seconds(5), logger: Logger
    ) {
        self.configuration = configuration
        topics = BridgeTopics(nodeID: configuration.nodeID)
        (self.mqtt, self.device, self.clock, self.logger) = (mqtt, device, clock, logger)
        (self.machineID, self.bridgeVersion, self.retryInterval) = (machineID, bridgeVersion, retryInterval)
        startedAt = clock.now
    }

    /// Where the clock's device config is (Home Assistant's device discovery).
    var discoveryTopic: String {
        HomeAssistantDiscovery.topic(prefix: configuration.discoveryPrefix, nodeID: configuration.nodeID)
    }

    /// The broker's last will for a bridge on `configuration`: the clock unavailable.
    public static func will(for configuration: BridgeConfiguration) -> MQTTClient.Message {
        MQTTClient.Message(topic: BridgeTopics(nodeID: configuration.nodeID).availability, payload: "offline")
    }

    /// Runs until the task is cancelled (each stream it reads ends then), then says goodbye (the clock unavailable) and disconnects.
    public func run() async {
        let (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        self.feed = feed
        // Its own discovery topic too: the config an earlier run left there names the alarms
        // Home Assistant still shows, some perhaps deleted while the bridge was not running.
        for topic in [topics.commands, configuration.discoveryPrefix + "/status", discoveryTopic] {
            do {
                try mqtt.subscribe(topic)
            } catch {
                logger.error("Cannot subscribe", metadata: ["topic": "\(topic)", "error": "\(error)"])
            }
        }
        let (events, changes, losses) = (mqtt.events(), device.deviceChanges(), device.connectionLosses())
        mqtt.start()
        requestLook(feed)
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await event in events { feed.yield(.mqtt(event)) }
            }
            group.addTask {
                for await change in changes {
                    if let button = change.button { feed.yield(.buttonPressed(button)) } else { self.requestLook(feed) }
                }
            }
            group.addTask {
                for await _ in losses { feed.yield(.alarmdLost) }
            }
            group.addTask { await self.process(inputs) }
        }
        retry?.cancel()
        preAlarmWait?.cancel()
        await mqtt.stop(farewell: Self.will(for: configuration))
        logger.notice("alarm-mqtt stopped")
    }

    private func process(_ inputs: AsyncStream<Input>) async {
        for await input in inputs {
            switch input {
            case .mqtt(.connected):
                brokerConnected = true
                logger.notice("Connected to the broker", metadata: ["broker": "\(configuration.broker)"])
                forgetPublished()
                announceAll()
            case .mqtt(.disconnected(let why)):
                if brokerConnected {
                    logger.warning("Lost the broker; connecting again", metadata: ["reason": "\(why)"])
                } else if why != lastBrokerFailure {
                    // A wrong password, a certificate, an unreachable host: said once, and again when it changes.
                    logger.warning("Cannot connect to the broker; trying again", metadata: ["broker": "\(configuration.broker)", "reason": "\(why)"])
                }
                lastBrokerFailure = why
                brokerConnected = false
            case .alarmdLost:
                alarmdUnreachable("the connection to alarmd was lost")
            case .mqtt(.message(let message)):
                await received(message)
            case .deviceChanged:
                // Only the last of several waiting changes reads alarmd: it sees them all.
                if pendingLooks.count.subtract(1, ordering: .relaxed).newValue == 0 { await lookAtClock() }
            case .buttonPressed(let button):
                sendEvent(topics.buttonEvent, ["event_type": button])
            case .preAlarm(let offset, let alarmAt):
                sendPreAlarm(offset: offset, alarmAt: alarmAt)
            }
        }
    }

    // MARK: - States

    /// Reads the clock from alarmd and publishes what changed; an alarmd that does not answer
    /// makes the clock unavailable and is asked again after ``retryInterval``.
    func lookAtClock() async {
        let status: StatusReport, records: [AlarmRecord], settings: SettingsReport
        do {
            async let statusAnswer = device.status()
            async let recordsAnswer = device.alarmRecords(all: true)
            async let settingsAnswer = device.settings()
            (status, records, settings) = try await (statusAnswer, recordsAnswer, settingsAnswer)
        } catch let error as ControlError where error.code == .forbidden {
            if alarmdReachable != false {
                logger.error("alarmd refuses to show the clock: alarm-mqtt must be an administrator (the alarmd-admin group)", metadata: ["error": "\(error)"])
            }
            alarmdUnreachable(nil)
            return
        } catch {
            alarmdUnreachable("\(error)")
            return
        }
        if alarmdReachable != true { logger.notice("Reading the clock from alarmd", metadata: ["socket": "\(configuration.socketPath)"]) }
        alarmdReachable = true
        identity = ClockIdentity(
            nodeID: configuration.nodeID, machineID: machineID, model: status.board, softwareVersion: status.version,
            bridgeVersion: bridgeVersion)
        hasLight = status.parts.contains { $0.name == "light" }
        states = ClockStates(status: status, records: records, settings: settings, alarmsOf: configuration.alarmOwner)
        announceAll()
        planPreAlarms()
    }

    /// alarmd cannot be read (`why`, logged once; `nil`: already said): the clock shows as
    /// unavailable, and alarmd is read again after ``retryInterval``.
    private func alarmdUnreachable(_ why: String?) {
        if let why, alarmdReachable != false {
            logger.warning("alarmd does not answer; the clock shows as unavailable until it does", metadata: ["error": "\(why)"])
        }
        alarmdReachable = false
        publishAvailability()
        scheduleRetry()
    }

    private func scheduleRetry() {
        guard retry == nil else { return }
        let (clock, interval) = (clock, retryInterval)
        retry = Task {
            _ = try? await clock.sleep(for: interval)
            self.retryDue()
        }
    }

    private func retryDue() {
        retry = nil
        if let feed { requestLook(feed) }
    }

    /// Asks the loop to read alarmd again.
    nonisolated func requestLook(_ feed: AsyncStream<Input>.Continuation) {
        pendingLooks.count.add(1, ordering: .relaxed)
        feed.yield(.deviceChanged)
    }

    /// Availability, discovery and every state, each only if it differs from what the broker
    /// has from this connection.
    func announceAll() {
        guard brokerConnected else { return }
        publishAvailability()
        guard alarmdReachable == true, let identity, let states else { return }
        let topic = discoveryTopic
        let alarms = states.alarms.map(\.entity)
        // A component gone (its alarm deleted, or no longer weekly): Home Assistant removes an
        // entity whose component comes with its platform alone; its retained state is deleted.
        let removed = announcedAlarms.compactMap { old -> HomeAssistantDiscovery.Alarm? in
            guard let now = alarms.first(where: { $0.id == old.id }) else { return old }
            return old.repeats && !now.repeats ? HomeAssistantDiscovery.Alarm(id: old.id, title: old.title, repeats: true, enabled: false) : nil
        }
        if !removed.isEmpty {
            let removal = HomeAssistantDiscovery.payload(identity: identity, alarms: alarms, removed: removed, hasLight: hasLight)
            guard publish(MQTTClient.Message(topic: topic, payload: removal)) else { return }
            publishedDiscovery = nil  // the config without them follows, retained in place of the removal
            for alarm in removed {
                let states = (alarm.enabled ? [topics.alarm(alarm.id) + "/enabled"] : []) + (alarm.repeats ? [topics.alarm(alarm.id) + "/skip"] : [])
                for state in states {
                    publish(MQTTClient.Message(topic: state, payload: []))  // an empty retained message deletes the broker's copy
                    published[state] = nil
                }
            }
        }
        announcedAlarms = alarms
        let discovery = HomeAssistantDiscovery.payload(identity: identity, alarms: alarms, hasLight: hasLight)
        if discovery != publishedDiscovery {
            publishedDiscovery = publish(MQTTClient.Message(topic: topic, payload: discovery)) ? discovery : nil
        }
        for (topic, payload) in states.messages(topics) {
            publishRetained(topic, payload)
        }
    }

    private func publishAvailability() {
        guard brokerConnected else { return }
        publishRetained(topics.availability, alarmdReachable == true ? "online" : "offline")
    }

    private func publishRetained(_ topic: String, _ payload: String) {
        guard published[topic] != payload else { return }
        published[topic] = publish(MQTTClient.Message(topic: topic, payload: payload)) ? payload : nil
    }

    /// Whether the broker took `message`; a failure is logged, and the caller forgets it was sent.
    @discardableResult
    func publish(_ message: MQTTClient.Message) -> Bool {
        do {
            try mqtt.publish(message)
            return true
        } catch {
            logger.warning("Cannot publish", metadata: ["topic": "\(message.topic)", "error": "\(error)"])
            return false
        }
    }

    /// Publishes a Home Assistant event (`event_type` and its attributes), not retained: Home
    /// Assistant would fire a retained one again whenever it starts. None is kept for later.
    @discardableResult
    func sendEvent(_ topic: String, _ event: some Encodable) -> Bool {
        guard brokerConnected else { return false }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let payload = try? encoder.encode(event) else { return false }
        return publish(MQTTClient.Message(topic: topic, payload: Array(payload), retained: false))
    }

    /// The broker connection began again, or Home Assistant started: everything is sent again.
    func forgetPublished() {
        published = [:]
        publishedDiscovery = nil
    }
}
