import AlarmKitCore
import AlarmModel
import AlarmMQTT
import AlarmProtocol
import FoundationEssentials
import Testing

/// What the bridge takes from the broker, and what it publishes of the clock.
@Suite struct BridgeCommandTests {
    let topics = BridgeTopics(nodeID: "bedroom")

    func parse(_ topic: String, _ payload: String, retained: Bool = false) throws(BridgeCommand.Refusal) -> BridgeCommand {
        try BridgeCommand.parse(.init(topic: "alarmd/bedroom/cmd/" + topic, payload: payload, retained: retained), topics: topics)
    }

    @Test func buttonsTakePressAndNumbersAWholeNumberInRange() throws {
        #expect(try parse("stop", "PRESS") == .stop)
        #expect(try parse("snooze", "") == .snooze)
        #expect(try parse("volume/set", "75") == .setVolume(percent: 75))
        #expect(try parse("volume/set", " 40.0\n") == .setVolume(percent: 40))
        #expect(try parse("snooze/set", "10") == .setSnooze(minutes: 10))
        #expect(try parse("light/set", #"{"state":"ON","brightness":51}"#) == .setLight(0.2))
        #expect(try parse("light/set", #"{"state":"ON"}"#) == .setLight(1))
        #expect(try parse("light/set", #"{"state":"OFF","transition":2}"#) == .setLight(nil))
        let id = UUID()
        #expect(try parse("alarm/\(id.uuidString.lowercased())/enabled/set", "OFF") == .setEnabled(id, false))
        #expect(try parse("alarm/\(id.uuidString)/skip/set", "ON") == .setSkip(id, true))
    }

    @Test(arguments: [
        ("stop", "press"), ("stop", "ON"), ("volume/set", "101"), ("volume/set", "-1"), ("volume/set", "50.5"), ("volume/set", "nan"),
        ("volume/set", "inf"), ("snooze/set", "0"), ("snooze/set", "1441"), ("snooze/set", ""), ("schedule", "{}"), ("alarm/x/delete", "PRESS"),
        ("alarm/5e0c41d2-0000-4000-8000-000000000001/enabled/set", "on"), ("alarm/5e0c41d2-0000-4000-8000-000000000001/delete", "PRESS"),
        ("alarm/not-a-uuid/enabled/set", "ON"), ("light/set", "ON"), ("light/set", #"{"state":"ON","brightness":256}"#),
        ("light/set", #"{"state":"DIM"}"#),
    ])
    func anythingElseIsRefusedSayingWhy(topic: String, payload: String) {
        #expect(throws: BridgeCommand.Refusal.self) { try parse(topic, payload) }
    }

    @Test func aRetainedCommandOrAnotherClocksOrAnOversizedOneIsRefused() {
        #expect(throws: BridgeCommand.Refusal.self) { try parse("stop", "PRESS", retained: true) }
        #expect(throws: BridgeCommand.Refusal.self) {
            try BridgeCommand.parse(.init(topic: "alarmd/kitchen/cmd/stop", payload: "PRESS", retained: false), topics: topics)
        }
        #expect(throws: BridgeCommand.Refusal.self) { try parse("stop", String(repeating: " ", count: 65) + "PRESS") }
    }

    @Test func theClocksActivityIsTheMostUrgentOfItsAlarms() {
        let scheduled = AlarmRecordSamples.record(.scheduled(nil))
        let snoozed = AlarmRecordSamples.record(.countdown(AlarmRecordSamples.countdown(.postAlert)))
        let timer = AlarmRecordSamples.record(.countdown(AlarmRecordSamples.countdown(.timer)))
        #expect(ClockStates.activity(of: []) == .idle)
        #expect(ClockStates.activity(of: [scheduled]) == .idle)
        #expect(ClockStates.activity(of: [scheduled, timer]) == .countdown)
        #expect(ClockStates.activity(of: [timer, snoozed]) == .snoozed)
    }

    @Test func statesArePublishedAsHomeAssistantReadsThem() {
        let states = ClockStates(
            activity: .alerting, nextAlarm: Date(timeIntervalSince1970: 1_795_000_060), timeSource: .restored, volumePercent: 77,
            snoozeMinutes: 9)
        let messages = Dictionary(uniqueKeysWithValues: states.messages(topics).map { ($0.topic, $0.payload) })
        #expect(messages == [
            "alarmd/bedroom/state": "alerting", "alarmd/bedroom/next_alarm": "2026-11-18T11:07:40+00:00",
            "alarmd/bedroom/time_source": "restored", "alarmd/bedroom/volume": "77", "alarmd/bedroom/snooze": "9",
        ])
        let none = ClockStates(activity: .idle, nextAlarm: nil, timeSource: nil, volumePercent: 0, snoozeMinutes: 1).messages(topics)
        #expect(none.first { $0.topic == topics.nextAlarm }?.payload == "None", "Home Assistant's unknown")
    }
}

enum AlarmRecordSamples {
    static func record(_ phase: AlarmPhase) -> AlarmRecord {
        AlarmRecord(
            id: UUID(), owner: ClientID(rawValue: 1000),
            definition: AlarmDefinition(
                schedule: nil, countdownDuration: .init(preAlert: 60, postAlert: 60),
                presentation: AlarmPresentation(alert: .init(title: "Tea"))),
            phase: phase, createdAt: Date(timeIntervalSince1970: 1_795_000_000), sequenceNumber: 1)
    }

    static func countdown(_ kind: CountdownPhase.Kind) -> CountdownPhase {
        CountdownPhase(kind: kind, startDate: Date(timeIntervalSince1970: 1_795_000_000), previouslyElapsed: 0, total: 60)
    }
}
