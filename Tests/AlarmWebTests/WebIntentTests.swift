import AlarmKitCore
import AlarmModel
import AlarmProtocol
import Foundation
import Testing

@testable import AlarmEngine
@testable import AlarmWeb

/// The page's Stop and Snooze are the alarm's buttons pressed: they deliver the intents the
/// clock's STOP and SNOOZE would, to the app that owns the alarm.
@Suite(.timeLimit(.minutes(5))) struct WebIntentTests {
    static let someone = ClientID(rawValue: 1001)

    static func definition(behavior: AlarmPresentation.Alert.SecondaryButtonBehavior, schedule: Alarm.Schedule?) -> AlarmDefinition {
        AlarmDefinition(
            schedule: schedule, countdownDuration: .init(preAlert: schedule == nil ? 600 : nil, postAlert: 300),
            presentation: AlarmPresentation(alert: .init(
                title: "Bob's alarm", stopButton: .stop, secondaryButton: .snooze, secondaryButtonBehavior: behavior)),
            stopIntent: AlarmIntent("StopIntent"), secondaryIntent: AlarmIntent("SnoozeIntent"))
    }

    @Test func snoozeThenStopFromThePageDeliverTheSecondaryAndStopIntents() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        let id = Alarm.ID()
        _ = try await rig.runtime.schedule(
            id: id, definition: Self.definition(behavior: .countdown, schedule: .fixed(WebRig.start.addingTimeInterval(60))),
            client: Self.someone, app: "bobs-alarms")
        rig.clock.advance(by: 60)
        await rig.runtime.handleWake(.deadlineReached)
        let state = try WebRig.json(await rig.request("GET", "/api/state", cookies: cookies))
        #expect((state["ringing"] as? [[String: Any]])?.first?["snoozes"] as? Bool == true)

        #expect(await rig.request("POST", "/api/alarms/\(id.uuidString)/snooze", cookies: cookies).status == 200)
        #expect(rig.runtime.intents.waiting(for: Self.someone).map(\.intent.name) == ["SnoozeIntent"])
        // Stop during the snooze ends it, as STOP held at the clock does.
        #expect(await rig.request("POST", "/api/alarms/\(id.uuidString)/stop", cookies: cookies).status == 200)
        #expect(await rig.runtime.record(for: AlarmKey(owner: Self.someone, id: id)) == nil)
        let delivered = rig.runtime.intents.waiting(for: Self.someone)
        #expect(delivered.map(\.intent.name) == ["SnoozeIntent", "StopIntent"])
        #expect(delivered.map(\.button) == [.secondary, .stop])
        await rig.stop()
    }

    @Test func stopOnACountingDownTimerDeliversItsStopIntent() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        let id = Alarm.ID()
        _ = try await rig.runtime.schedule(id: id, definition: Self.definition(behavior: .countdown, schedule: nil), client: Self.someone)
        #expect(await rig.request("POST", "/api/timers/\(id.uuidString)/stop", cookies: cookies).status == 200)
        #expect(await rig.runtime.record(for: AlarmKey(owner: Self.someone, id: id)) == nil)
        #expect(rig.runtime.intents.waiting(for: Self.someone).map(\.intent.name) == ["StopIntent"])
        await rig.stop()
    }

    /// A `.custom` secondary button stops the alarm: the page's Snooze is not it.
    @Test func snoozeFromThePageIsRefusedWhenTheSecondaryButtonDoesNotSnooze() async throws {
        let rig = try await WebRig()
        let cookies = try await rig.pair()
        let id = Alarm.ID()
        _ = try await rig.runtime.schedule(
            id: id, definition: Self.definition(behavior: .custom, schedule: .fixed(WebRig.start)), client: Self.someone)
        await rig.runtime.handleWake(.deadlineReached)
        // The page offers no Snooze for it.
        let state = try WebRig.json(await rig.request("GET", "/api/state", cookies: cookies))
        let ringing = try #require(state["ringing"] as? [[String: Any]])
        #expect(ringing.map { $0["id"] as? String } == [id.uuidString])
        #expect(ringing.first?["snoozes"] as? Bool == false)
        #expect(await rig.request("POST", "/api/alarms/\(id.uuidString)/snooze", cookies: cookies).status != 200)
        #expect(await rig.runtime.record(for: AlarmKey(owner: Self.someone, id: id))?.phase.state == .alerting)
        #expect(rig.runtime.intents.waiting(for: Self.someone).isEmpty)
        await rig.stop()
    }
}
