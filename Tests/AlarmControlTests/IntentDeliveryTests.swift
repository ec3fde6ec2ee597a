import AlarmKitCore
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
