import AlarmKitCore
import AlarmMQTT
import AlarmModel
import AlarmSimulator
import AlarmTestKit
import AlarmTime
import Foundation
import Glibc
import Testing

/// alarm-mqtt end to end: a running clock on fakes behind its real control server, the bridge,
/// and a real Mosquitto broker with a listener on it. Every wait ends on a message or a log line.
@Suite(.timeLimit(.minutes(2))) struct BridgeTests {
    static func json(_ message: MQTTClient.Message?) throws -> [String: Any] {
        let payload = try #require(message).payload
        return try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    }

    /// A broker started, a clock on it (`make`), a listener on the broker, and the bridge started.
    static func running(
        _ make: (TestBroker) async throws -> BridgeRig = { try await BridgeRig(broker: $0) }
    ) async throws -> (broker: TestBroker, rig: BridgeRig, listener: BrokerListener) {
        let broker = try TestBroker()
        try await broker.start()
        let rig = try await make(broker)
        let listener = try await BrokerListener(broker)
        try rig.startBridge()
        return (broker, rig, listener)
    }

    @Test func theClockIsAnnouncedAndItsStatesFollowTheEngine() async throws {
        let (broker, rig, listener) = try await Self.running()

        let discovery = try Self.json(await listener.next(on: "homeassistant/device/bedroom/config"))
        #expect(Set(discovery.keys) == ["dev", "o", "avty", "qos", "cmps"])
        let components = try #require(discovery["cmps"] as? [String: [String: Any]])
        #expect(components["state"]?["stat_t"] as? String == rig.topics.state)
        #expect(await listener.next(on: rig.topics.availability)?.text == "online")
        #expect(await listener.next(on: rig.topics.state)?.text == "idle")
        #expect(await listener.next(on: rig.topics.nextAlarm)?.text == "None")

        let due = BridgeRig.start.addingTimeInterval(60)
        _ = try await rig.schedule(at: due)
        #expect(await listener.next(on: rig.topics.nextAlarm)?.text == "2026-11-18T11:07:40+00:00")
        // How fast is measured in Benchmarks/mqtt-bridge.sh and in run-vm, not here.
        rig.clock.advance(to: due)
        let alerting = await listener.next(on: rig.topics.state)
        #expect(alerting?.text == "alerting")
        #expect(alerting?.retained == false, "live, not a replay")
        #expect(rig.audio.nowPlaying != nil)
        await rig.stop()
        broker.stop()
    }

    @Test func stopFromTheBrokerSilencesTheAlertAndIsLoggedWithItsTopic() async throws {
        let (broker, rig, listener) = try await Self.running()
        #expect(await listener.next(on: rig.topics.state)?.text == "idle")
        let due = BridgeRig.start.addingTimeInterval(60)
        _ = try await rig.schedule(at: due)
        rig.clock.advance(to: due)
        #expect(await listener.next(on: rig.topics.state)?.text == "alerting")

        var sounds = rig.audio.events().makeAsyncIterator()
        try listener.send(rig.topics.command("stop"), "PRESS")
        #expect(await sounds.next() == .stopped)
        #expect(await listener.next(on: rig.topics.state)?.text == "idle")
        let logged = await rig.log.waitFor("MQTT command")
        #expect(logged?.metadata["topic"] == "alarmd/bedroom/cmd/stop")
        await rig.stop()
        broker.stop()
    }

    @Test func aRetainedMalformedOrUnknownCommandIsRefusedAndLoggedAndChangesNothing() async throws {
        let broker = try TestBroker()
        try await broker.start()
        let rig = try await BridgeRig(broker: broker)
        let listener = try await BrokerListener(broker)
        // Left on the broker by someone earlier: replayed to the bridge when it subscribes.
        try listener.send(rig.topics.command("snooze"), "PRESS", retained: true)
        let due = BridgeRig.start.addingTimeInterval(60)
        _ = try await rig.schedule(at: due)
        rig.clock.advance(to: due)
        try rig.startBridge()
        #expect(await listener.next(on: rig.topics.state)?.text == "alerting")
        let replayed = await rig.log.waitFor("MQTT command refused; nothing changed") { $0.metadata["topic"] == "alarmd/bedroom/cmd/snooze" }
        #expect(replayed?.metadata["reason"]?.contains("retained") == true)

        try listener.send(rig.topics.command("volume/set"), "loud")
        try listener.send(rig.topics.command("schedule"), #"{"at":"07:00"}"#)
        try listener.send(rig.topics.command("stop"), "\u{1B}[2J")
        let malformed = await rig.log.waitFor("MQTT command refused; nothing changed") { $0.metadata["topic"] == "alarmd/bedroom/cmd/volume/set" }
        #expect(malformed?.metadata["reason"]?.contains("whole number from 0 to 100") == true)
        let unknown = await rig.log.waitFor("MQTT command refused; nothing changed") { $0.metadata["topic"] == "alarmd/bedroom/cmd/schedule" }
        #expect(unknown?.metadata["reason"]?.contains("no command") == true)
        let garbage = await rig.log.waitFor("MQTT command refused; nothing changed") { $0.metadata["topic"] == "alarmd/bedroom/cmd/stop" }
        #expect(garbage?.metadata["reason"]?.contains("\u{1B}") == false, "no control characters in the journal")
        #expect(rig.audio.nowPlaying != nil, "still ringing")
        #expect(await rig.runtime.allAlarms().count == 1)
        await rig.stop()
        broker.stop()
    }

    @Test func theVolumeAndSnoozeLengthAreSetFromTheBrokerAndPublishedBack() async throws {
        let (broker, rig, listener) = try await Self.running()
        #expect(await listener.next(on: rig.topics.snooze)?.text == "9")
        try listener.send(rig.topics.command("snooze/set"), "5")
        #expect(await listener.next(on: rig.topics.snooze)?.text == "5")
        try listener.send(rig.topics.command("volume/set"), "50")
        #expect(await listener.next(on: rig.topics.volume) { $0 == "50" } != nil)
        await rig.stop()
        broker.stop()
    }

    @Test func theBrokerRestartedMidAlertLeavesTheAlarmRingingAndTheBridgeRepublishes() async throws {
        let broker = try TestBroker()
        try await broker.start()
        let rig = try await BridgeRig(broker: broker)
        try rig.startBridge()
        let due = BridgeRig.start.addingTimeInterval(60)
        _ = try await rig.schedule(at: due)
        rig.clock.advance(to: due)
        #expect(await rig.log.waitFor("Connected to the broker") != nil)
        broker.stop()
        #expect(await rig.log.waitFor("Lost the broker; connecting again") != nil)
        #expect(rig.audio.nowPlaying != nil, "the alarm rings on without its broker")

        try await broker.start()  // empty: retained states were not persisted
        let listener = try await BrokerListener(broker)
        #expect(await listener.next(on: rig.topics.state)?.text == "alerting", "republished on reconnecting")
        #expect(await listener.next(on: rig.topics.availability)?.text == "online")
        await rig.stop()
        broker.stop()
    }

    @Test func aStoppedBridgeSaysTheClockIsUnavailableAndTheAlarmStillRings() async throws {
        let (broker, rig, listener) = try await Self.running()
        #expect(await listener.next(on: rig.topics.availability)?.text == "online")
        await rig.stopBridge()
        #expect(await listener.next(on: rig.topics.availability)?.text == "offline")
        let due = BridgeRig.start.addingTimeInterval(60)
        _ = try await rig.schedule(at: due)
        var sounds = rig.audio.events().makeAsyncIterator()
        rig.clock.advance(to: due)
        if case .started = await sounds.next() {} else { Issue.record("the alarm did not ring") }
        await rig.stop()
        broker.stop()
    }

    @Test func twoClocksOnOneBrokerAreTwoDevicesWhoseEntitiesNeverCollide() async throws {
        let broker = try TestBroker()
        try await broker.start()
        let bedroom = try await BridgeRig(broker: broker, node: "bedroom")
        let kitchen = try await BridgeRig(broker: broker, node: "kitchen")
        let listener = try await BrokerListener(broker)
        try bedroom.startBridge(machineID: "11111111111111111111111111111111")
        try kitchen.startBridge(machineID: "22222222222222222222222222222222")
        let first = try Self.json(await listener.next(on: "homeassistant/device/bedroom/config"))
        let second = try Self.json(await listener.next(on: "homeassistant/device/kitchen/config"))
        func uniqueIDs(_ config: [String: Any]) -> Set<String> {
            Set(((config["cmps"] as? [String: [String: Any]]) ?? [:]).values.compactMap { $0["uniq_id"] as? String })
        }
        func topics(_ config: [String: Any]) -> Set<String> {
            Set(((config["cmps"] as? [String: [String: Any]]) ?? [:]).values.flatMap { [$0["stat_t"], $0["cmd_t"]].compactMap { $0 as? String } })
        }
        #expect(uniqueIDs(first).count == (first["cmps"] as? [String: Any])?.count)
        #expect(uniqueIDs(first).isDisjoint(with: uniqueIDs(second)))
        #expect(topics(first).isDisjoint(with: topics(second)))
        #expect(await listener.next(on: "alarmd/kitchen/state")?.text == "idle")
        await bedroom.stop()
        await kitchen.stop()
        broker.stop()
    }

    /// Two alarms ten minutes apart, offsets of 20 and 5 minutes: every event of both, in the
    /// order of their moments (the second alarm's 20 comes before the first's 5).
    @Test func aPreAlarmEventIsSentAtEachOffsetTheHouseholdChoseBeforeEachAlarm() async throws {
        let (broker, rig, listener) = try await Self.running { try await BridgeRig(broker: $0, preAlarm: [.seconds(20 * 60), .seconds(5 * 60)]) }
        let first = BridgeRig.start.addingTimeInterval(3600)
        let second = first.addingTimeInterval(10 * 60)
        _ = try await rig.schedule(at: first)
        _ = try await rig.schedule(at: second)
        #expect(await listener.next(on: rig.topics.nextAlarm) { $0 != "None" } != nil)
        for (alarm, minutes) in [(first, 20), (second, 20), (first, 5)] {
            let moment = alarm.addingTimeInterval(-Double(minutes) * 60)
            await rig.clock.waitForSleeper(until: moment)
            rig.clock.advance(to: moment)
            let event = try Self.json(await listener.next(on: rig.topics.preAlarmEvent))
            #expect(event["event_type"] as? String == "pre_alarm")
            #expect(event["minutes"] as? Int == minutes)
            #expect(event["alarm"] as? String == ISO8601.format(alarm, in: .utc))
        }
        await rig.stop()
        broker.stop()
    }

    @Test func aPressOfTheClocksButtonsReachesTheEventTopic() async throws {
        let (broker, rig, listener) = try await Self.running()
        #expect(await listener.next(on: rig.topics.state)?.text == "idle")
        rig.buttons.press(.snooze)
        rig.buttons.release(.snooze)
        let event = await listener.next(on: rig.topics.buttonEvent)
        #expect(event?.text == #"{"event_type":"snooze"}"#)
        #expect(event?.retained == false)
        await rig.stop()
        broker.stop()
    }

    @Test func theAlarmsOfTheConfiguredUserAreSwitchesThatActAndAreRemovedWithTheirAlarm() async throws {
        let (broker, rig, listener) = try await Self.running { try await BridgeRig(broker: $0, alarmsOf: getuid()) }
        #expect(await listener.next(on: rig.topics.state)?.text == "idle")
        let id = try await rig.scheduleWeekly(title: "Gym")
        let base = rig.topics.alarm(id)
        #expect(await listener.next(on: base + "/enabled")?.text == "ON")
        #expect(await listener.next(on: base + "/skip")?.text == "OFF")
        let config = try Self.json(await listener.next(on: "homeassistant/device/bedroom/config") { $0.contains("Gym") })
        let components = try #require(config["cmps"] as? [String: [String: Any]])
        let key = "alarm_" + id.uuidString.lowercased().prefix(8)
        #expect(components[key + "_enabled"]?["cmd_t"] as? String == rig.topics.command("alarm/\(id.uuidString.lowercased())/enabled/set"))

        try listener.send(rig.topics.command("alarm/\(id.uuidString.lowercased())/skip/set"), "ON")
        #expect(await listener.next(on: base + "/skip")?.text == "ON")
        try listener.send(rig.topics.command("alarm/\(id.uuidString.lowercased())/enabled/set"), "OFF")
        #expect(await listener.next(on: base + "/enabled")?.text == "OFF")
        // Home Assistant sends a switch's command whatever it shows: OFF for the skip of an alarm
        // that is off must not switch the alarm on (`enable` is how a skip is undone).
        try listener.send(rig.topics.command("alarm/\(id.uuidString.lowercased())/skip/set"), "OFF")
        let skipTopic = rig.topics.command("alarm/\(id.uuidString.lowercased())/skip/set")
        let answered = await rig.log.waitFor { $0.metadata["topic"] == skipTopic && $0.metadata["done"]?.contains("skips the next day") != true }
        #expect(answered != nil)
        #expect(await rig.runtime.record(for: AlarmKey(owner: ClientID(rawValue: getuid()), id: id))?.enabled == false)
        let other = UUID()
        try listener.send(rig.topics.command("alarm/\(other.uuidString.lowercased())/enabled/set"), "OFF")
        let refused = await rig.log.waitFor("MQTT command not carried out") { $0.metadata["topic"]?.contains(other.uuidString.lowercased()) == true }
        #expect(refused?.metadata["reason"] == "not one of the alarms this bridge shows")

        try await rig.runtime.perform(.cancel, id: id, client: ClientID(rawValue: getuid()))
        let removal = try Self.json(await listener.next(on: "homeassistant/device/bedroom/config") { !$0.contains("Gym") })
        let removed = try #require(removal["cmps"] as? [String: [String: Any]])
        #expect(removed[key + "_enabled"]?.keys.sorted() == ["p"], "removed from Home Assistant")
        #expect(await listener.next(on: base + "/enabled")?.payload == [], "its retained state deleted")
        await rig.stop()
        broker.stop()
    }

    /// The config an earlier run left retained on the broker names the alarms Home Assistant
    /// still shows: one deleted while the bridge was not running is removed when it starts again.
    @Test func anAlarmDeletedWhileTheBridgeWasStoppedIsRemovedWhenItStartsAgain() async throws {
        let (broker, rig, listener) = try await Self.running { try await BridgeRig(broker: $0, alarmsOf: getuid()) }
        let id = try await rig.scheduleWeekly(title: "Gym")
        let key = "alarm_" + id.uuidString.lowercased().prefix(8)
        #expect(await listener.next(on: rig.topics.alarm(id) + "/enabled")?.text == "ON")
        await rig.stopBridge()
        #expect(await listener.next(on: rig.topics.availability) { $0 == "offline" } != nil)
        try await rig.runtime.perform(.cancel, id: id, client: ClientID(rawValue: getuid()))

        try rig.startBridge()
        let configTopic = "homeassistant/device/bedroom/config"
        let removal = try Self.json(await listener.next(on: configTopic) { $0.contains(#""\#(key)_enabled":{"p":"switch"}"#) })
        let removed = try #require(removal["cmps"] as? [String: [String: Any]])
        #expect(removed[key + "_skip"]?.keys.sorted() == ["p"], "the skip switch removed as well")
        #expect(await listener.next(on: rig.topics.alarm(id) + "/enabled") { $0.isEmpty } != nil, "its retained state deleted")
        #expect(await listener.next(on: configTopic) { !$0.contains(key) } != nil, "then the config without it, retained")
        await rig.stop()
        broker.stop()
    }

    /// As a household configures it: TLS verified with its own authority, a login whose
    /// password is in a file only the group may read.
    @Test func overTLSWithALoginFromAPasswordFileTheClockIsAnnounced() async throws {
        let keys = try TemporaryDirectory()
        try await MQTTClientTests.certificates(in: keys.path)
        let tool = try #require(TestBroker.program("bin/mosquitto_passwd"), "no mosquitto_passwd: run deploy/install-build-deps")
        let made = try await ChildProcess.run(tool, ["-b", "-c", keys.path + "/passwords", "clock", "s3cret pw"])
        try #require(made.exitStatus == 0, "mosquitto_passwd: \(made.standardError)")
        let broker = try TestBroker(settings: """
            allow_anonymous false
            password_file \(keys.path)/passwords
            cafile \(keys.path)/ca.crt
            certfile \(keys.path)/server.crt
            keyfile \(keys.path)/server.key
            """)
        try await broker.start()
        try TestFiles.write(Array("s3cret pw\n".utf8), to: keys.path + "/mqtt-password")
        chmod(keys.path + "/mqtt-password", 0o640)
        let file = keys.path + "/alarm-mqtt.toml"
        try TestFiles.write(Array("""
            [mqtt]
            broker = "mqtts://127.0.0.1:\(broker.port)"
            ca_file = "\(keys.path)/ca.crt"
            username = "clock"
            password_file = "\(keys.path)/mqtt-password"
            node_id = "bedroom"
            """.utf8), to: file)
        let rig = try await BridgeRig(broker: broker, configurationFile: file)
        let listener = try await BrokerListener(broker, username: "clock", password: "s3cret pw", caFile: keys.path + "/ca.crt")
        try rig.startBridge()
        #expect(await listener.next(on: "homeassistant/device/bedroom/config") != nil)
        #expect(await listener.next(on: rig.topics.state)?.text == "idle")
        await rig.stop()
        broker.stop()
    }

    @Test func alarmdGoneMakesTheClockUnavailableAndBackItIsReadAgain() async throws {
        let (broker, rig, listener) = try await Self.running()
        #expect(await listener.next(on: rig.topics.availability)?.text == "online")
        #expect(await listener.next(on: rig.topics.nextAlarm)?.text == "None")
        await rig.stopServer()
        #expect(await listener.next(on: rig.topics.availability)?.text == "offline")
        // Changed while the bridge could not read it: read again once alarmd answers.
        _ = try await rig.schedule(at: BridgeRig.start.addingTimeInterval(600))
        try rig.startServer()
        #expect(await listener.next(on: rig.topics.availability)?.text == "online")
        #expect(await listener.next(on: rig.topics.nextAlarm)?.text == "2026-11-18T11:16:40+00:00")
        await rig.stop()
        broker.stop()
    }

    @Test func theSunriseLightIsAHomeAssistantLightTurnedOnAndOffFromTheBroker() async throws {
        let (broker, rig, listener) = try await Self.running { try await BridgeRig(broker: $0, withLight: true) }
        let config = try Self.json(await listener.next(on: "homeassistant/device/bedroom/config"))
        let light = try #require((config["cmps"] as? [String: [String: Any]])?["light"])
        #expect(light["schema"] as? String == "json" && light["cmd_t"] as? String == rig.topics.command("light/set"))
        #expect(await listener.next(on: rig.topics.light)?.text == #"{"state":"OFF"}"#)
        try listener.send(rig.topics.command("light/set"), #"{"state":"ON","brightness":128}"#)
        #expect(await listener.next(on: rig.topics.light)?.text == #"{"brightness":128,"state":"ON"}"#)
        #expect(abs(rig.light.output - 0.502) < 0.001, "the lamp itself")
        try listener.send(rig.topics.command("light/set"), #"{"state":"OFF"}"#)
        #expect(await listener.next(on: rig.topics.light)?.text == #"{"state":"OFF"}"#)
        #expect(rig.light.output == 0)
        await rig.stop()
        broker.stop()
    }
}
