import AlarmKitCore
import AlarmModel
import AlarmTestKit
import FoundationEssentials
import Glibc
import Testing

@testable import AlarmClient
@testable import AlarmControl
@testable import AlarmEngine
@testable import AlarmProtocol

/// Intents over the control socket: a connected client gets its own at once, one that connects
/// later gets what waits for it (after a daemon restart too), and nobody else's.
@Suite(.timeLimit(.minutes(5)))
struct IntentDeliveryTests {
    private static var me: ClientID { ClientID(rawValue: geteuid()) }

    @Test func aConnectedClientGetsItsIntentAsThePressHappensAndAcknowledgesIt() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let manager = AlarmManager(backend: SocketAlarmBackend(client: rig.client()))
            let alarm = Alarm.ID()
            // The stored form of the app's own intent, as the engine posts it on a press.
            _ = try await manager.schedule(id: alarm, configuration: .timer(
                duration: 60, attributes: AlarmAttributes<NoAlarmMetadata>(presentation: .init(alert: .init(title: "Tea")), tintColor: .green),
                stopIntent: AlarmIntent("tea-ready", parameters: ["cup": "green"])))
            let stopIntent = try #require(await rig.runtime.record(for: AlarmKey(owner: Self.me, id: alarm))?.definition.stopIntent)
            var deliveries = manager.intentDeliveries.makeAsyncIterator()
            rig.runtime.intents.post(stopIntent, button: .stop, alarm: alarm, owner: Self.me)
            let delivery = try #require(await deliveries.nextElement())
            #expect(delivery.intent == AlarmIntent("tea-ready", parameters: ["cup": "green"]))
            #expect(delivery.alarmID == alarm && delivery.button == .stop && delivery.date == ServerRig.start)
            try await manager.acknowledge(delivery)
            #expect(rig.runtime.intents.waiting(for: Self.me).isEmpty)
            // An unknown id is no error: another process of the user acknowledged it first.
            try await manager.acknowledge(delivery)
        }
    }

    @Test func anIntentWaitsForItsClientAcrossARestartAndNoOtherClientSeesIt() async throws {
        let rig = try ServerRig()
        let alarm = Alarm.ID()
        rig.runtime.intents.post(AlarmIntent("coffee"), button: .stop, alarm: alarm, owner: Self.me)
        try await rig.restart()
        try await rig.serving {
            if getuid() == 0 {
                // Another user's connection, subscribed first: it must get nothing of ours.
                let stranger = AlarmManager(backend: SocketAlarmBackend(client: rig.client(as: ServerRig.otherUser)))
                var theirs = stranger.intentDeliveries.makeAsyncIterator()
                let strangerID = ClientID(rawValue: ServerRig.otherUser.uid)
                rig.runtime.intents.post(AlarmIntent("their-own"), button: .secondary, alarm: Alarm.ID(), owner: strangerID)
                #expect(await theirs.nextElement()?.intent.name == "their-own")
            }
            let manager = AlarmManager(backend: SocketAlarmBackend(client: rig.client()))
            var deliveries = manager.intentDeliveries.makeAsyncIterator()
            let waiting = try #require(await deliveries.nextElement())
            #expect(waiting.intent == AlarmIntent("coffee") && waiting.alarmID == alarm)
            try await manager.acknowledge(waiting)
        }
        try await rig.restart()
        #expect(rig.runtime.intents.waiting(for: Self.me).isEmpty, "acknowledged for good")
    }

    /// Two connections of one app (two processes of it, as `AlarmManager.shared` names them)
    /// both get the intent; exactly one takes it; if that one goes away without acknowledging
    /// it, the other gets it again and takes it. Another app of the same user never sees it.
    @Test func twoConnectionsOfOneAppGetTheIntentAndExactlyOneTakesIt() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let first = rig.client(app: "eggs")
            let second = rig.client(app: "eggs")
            let other = rig.client(app: "tea")
            let alarm = Alarm.ID()
            let attributes = AlarmAttributes<NoAlarmMetadata>(
                presentation: .init(alert: .init(title: "Eggs")), tintColor: .orange)
            // Due now: alerting at once; the device's STOP delivers its intent to the app "eggs".
            _ = try await AlarmManager(backend: SocketAlarmBackend(client: first)).schedule(id: alarm, configuration: .alarm(
                schedule: .fixed(ServerRig.start), attributes: attributes, stopIntent: AlarmIntent("eggs-done")))
            #expect(await rig.runtime.record(for: AlarmKey(owner: Self.me, id: alarm))?.app == "eggs")
            try await rig.runtime.press(.stop, on: AlarmKey(owner: Self.me, id: alarm))

            var firsts = first.intentDeliveries().makeAsyncIterator()
            var seconds = second.intentDeliveries().makeAsyncIterator()
            let delivery = try #require(await firsts.nextElement())
            #expect(delivery.intent == AlarmIntent("eggs-done"))
            #expect(await seconds.nextElement()?.id == delivery.id, "every process of the app sees it")
            #expect(try await first.takeIntent(delivery.id))
            #expect(try await !second.takeIntent(delivery.id), "only one process runs it")
            #expect(try await first.takeIntent(delivery.id), "the taker keeps it")
            #expect(try await !other.takeIntent(delivery.id), "another app cannot take it")

            // The taker goes away before acknowledging it: the other process gets it again.
            first.close()
            #expect(await seconds.nextElement()?.id == delivery.id)
            #expect(try await second.takeIntent(delivery.id))
            try await second.acknowledgeIntent(delivery.id)
            #expect(rig.runtime.intents.waiting(for: Self.me).isEmpty)

            // The other app's stream starts with its own intent: it never had the eggs one.
            let tea = Alarm.ID()
            _ = try await AlarmManager(backend: SocketAlarmBackend(client: other)).schedule(id: tea, configuration: .alarm(
                schedule: .fixed(ServerRig.start), attributes: attributes, stopIntent: AlarmIntent("tea-done")))
            try await rig.runtime.press(.stop, on: AlarmKey(owner: Self.me, id: tea))
            var others = other.intentDeliveries().makeAsyncIterator()
            #expect(await others.nextElement()?.intent == AlarmIntent("tea-done"))
            second.close()
            other.close()
        }
    }

    @Test func helloRefusesAnAppNameWithControlCharacters() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let connection = try await rig.rawConnection()
            await connection.send(Array(#"{"v":1,"id":1,"op":"hello","params":{"app":"eggs\n"}}"#.utf8) + [10])
            let refused = await connection.nextMessage()
            #expect(refused?["ok"] == .bool(false))
            #expect(refused?["error"]?["code"] == .string("malformed"))
        }
    }

    @Test func acknowledgeIntentNeedsADeliveryID() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let connection = try await rig.rawConnection()
            await connection.send(Array(#"{"v":1,"id":1,"op":"acknowledgeIntent","params":{"id":"not a uuid"}}"#.utf8) + [10])
            let refused = await connection.nextMessage()
            #expect(refused?["ok"] == .bool(false))
            #expect(refused?["error"]?["code"] == .string("malformed"))
        }
    }
}
