import AlarmKitCore
import AlarmModel
import AlarmProtocol
import FoundationEssentials
import Testing

@testable import AlarmEngine

/// A person's press on an alarm's button: the one rule for what it changes and which intent it
/// delivers, whichever path the press came by (the device's buttons, the phone page).
@Suite(.timeLimit(.minutes(5))) struct AlarmPressTests {
    static let sixFiftyNine = Fixture.at("2026-11-23T06:59:00+01:00")
    static let stopped = AlarmIntent("StopIntent", parameters: ["alarmID": "wake"])
    static let secondary = AlarmIntent("RepeatIntent", parameters: ["alarmID": "wake"])

    static func record(
        _ phase: AlarmPhase, schedule: Alarm.Schedule? = .fixed(sixFiftyNine),
        behavior: AlarmPresentation.Alert.SecondaryButtonBehavior? = .countdown, secondaryButton: AlarmButton? = .snooze,
        postAlert: TimeInterval? = 540
    ) -> AlarmRecord {
        var presentation = Fixture.presentation()
        presentation.alert.secondaryButton = secondaryButton
        presentation.alert.secondaryButtonBehavior = behavior
        let definition = AlarmDefinition(
            schedule: schedule, countdownDuration: postAlert.map { .init(preAlert: nil, postAlert: $0) },
            presentation: presentation, stopIntent: stopped, secondaryIntent: secondary)
        return AlarmRecord(id: Alarm.ID(), owner: Fixture.owner, definition: definition, phase: phase, createdAt: sixFiftyNine, sequenceNumber: 1)
    }

    static let alerting = AlarmPhase.alerting(AlertingPhase(
        since: sixFiftyNine, dueDate: sixFiftyNine, time: .init(hour: 6, minute: 59), occurrence: .fixed(sixFiftyNine)))
    static let counting = AlarmPhase.countdown(CountdownPhase(
        kind: .postAlert, startDate: sixFiftyNine, previouslyElapsed: 0, total: 540, occurrence: .fixed(sixFiftyNine)))

    @Test func eachPressOnAnAlertingAlarmDeliversItsButtonsIntent() throws {
        #expect(try Self.record(Self.alerting).response(to: .stop) == AlarmPressResponse(.stop, delivering: Self.stopped, as: .stop))
        #expect(try Self.record(Self.alerting).response(to: .secondary)
                == AlarmPressResponse(.countdown, delivering: Self.secondary, as: .secondary))
        #expect(try Self.record(Self.alerting, behavior: .custom).response(to: .secondary)
                == AlarmPressResponse(.stop, delivering: Self.secondary, as: .secondary))
        // No behaviour given: a snooze when the alarm can count down again, else custom.
        #expect(try Self.record(Self.alerting, behavior: nil).response(to: .secondary).action == .countdown)
        #expect(try Self.record(Self.alerting, behavior: nil, postAlert: nil).response(to: .secondary).action == .stop)
    }

    @Test func stopEndsACountdownWithTheStopIntentAndPausingDeliversNone() throws {
        #expect(try Self.record(Self.counting).response(to: .stop) == AlarmPressResponse(.stop, delivering: Self.stopped, as: .stop))
        #expect(try Self.record(Self.counting, schedule: nil).response(to: .stop)
                == AlarmPressResponse(.cancel, delivering: Self.stopped, as: .stop), "a timer is over once stopped")
        #expect(try Self.record(Self.counting).response(to: .pause) == AlarmPressResponse(.pause))
    }

    @Test func aButtonTheAlarmDoesNotShowNowIsRefused() {
        #expect(throws: AlarmPressRefusal.self) { try Self.record(Self.alerting, secondaryButton: nil).response(to: .secondary) }
        #expect(throws: AlarmPressRefusal.self) { try Self.record(Self.counting).response(to: .secondary) }
        #expect(throws: AlarmPressRefusal.self) { try Self.record(.scheduled(nil)).response(to: .stop) }
        #expect(throws: AlarmPressRefusal.self) { try Self.record(Self.alerting).response(to: .pause) }
    }

    @Test func aPressMakesTheChangeThenDeliversTheIntentToTheOwnerOnly() async throws {
        let rig = try EngineRig(now: Self.sixFiftyNine)
        let id = Alarm.ID()
        var definition = Fixture.fixed(Self.sixFiftyNine, postAlert: 540)
        definition.stopIntent = Self.stopped
        definition.secondaryIntent = Self.secondary
        _ = try await rig.runtime.schedule(id: id, definition: definition, client: Fixture.stranger)
        let key = AlarmKey(owner: Fixture.stranger, id: id)

        #expect(try await rig.runtime.press(.secondary, on: key) == .countdown)
        #expect(await rig.runtime.alarms(for: Fixture.stranger).map(\.state) == [.countdown])
        #expect(rig.runtime.intents.waiting(for: Fixture.stranger).map(\.intent) == [Self.secondary])

        #expect(try await rig.runtime.press(.stop, on: key) == .stop)
        #expect(await rig.runtime.alarms(for: Fixture.stranger).isEmpty)
        let delivered = rig.runtime.intents.waiting(for: Fixture.stranger)
        #expect(delivered.map(\.intent) == [Self.secondary, Self.stopped])
        #expect(delivered.map(\.button) == [.secondary, .stop])
        #expect(rig.runtime.intents.waiting(for: Fixture.owner).isEmpty)
    }

    @Test func aRefusedPressChangesNothingAndDeliversNothing() async throws {
        let rig = try EngineRig(now: Self.sixFiftyNine)
        let id = Alarm.ID()
        var definition = Fixture.alarm(7, 0)
        definition.stopIntent = Self.stopped
        _ = try await rig.runtime.schedule(id: id, definition: definition, client: Fixture.owner)
        await #expect(throws: AlarmPressRefusal.self) { try await rig.runtime.press(.stop, on: Fixture.key(id)) }
        await #expect(throws: AlarmOperationError.notFound(id)) {
            try await rig.runtime.press(.stop, on: AlarmKey(owner: Fixture.stranger, id: id))
        }
        #expect(await rig.runtime.alarms(for: Fixture.owner).map(\.state) == [.scheduled])
        #expect(rig.runtime.intents.waiting(for: Fixture.owner).isEmpty)
    }

    /// An app's own call is not a press: Apple runs no intent for it.
    @Test func anAppsOwnStopDeliversNoIntent() async throws {
        let rig = try EngineRig(now: Self.sixFiftyNine)
        let id = Alarm.ID()
        var definition = Fixture.fixed(Self.sixFiftyNine)
        definition.stopIntent = Self.stopped
        _ = try await rig.runtime.schedule(id: id, definition: definition, client: Fixture.owner)
        try await rig.runtime.perform(.stop, id: id, client: Fixture.owner)
        #expect(rig.runtime.intents.waiting(for: Fixture.owner).isEmpty)
    }
}
