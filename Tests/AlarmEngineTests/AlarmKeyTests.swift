import AlarmKitCore
import AlarmModel
import AlarmProtocol
import FoundationEssentials
import Testing

@testable import AlarmEngine

/// Alarm ids are each client's own: a client may use an id another client uses, and learns
/// nothing of the other's alarm from any answer.
@Suite struct AlarmKeyTests {
    let sunday = Fixture.at("2026-11-22T20:00:00+01:00")
    let sevenMonday = Fixture.at("2026-11-23T07:00:00+01:00")
    let shared = Alarm.ID()
    var ownersKey: AlarmKey { AlarmKey(owner: Fixture.owner, id: shared) }
    var strangersKey: AlarmKey { AlarmKey(owner: Fixture.stranger, id: shared) }

    @Test func aClientSchedulesAnIDAnotherClientUsesAsItsOwnAlarmAndBothRing() throws {
        var scheduler = Fixture.scheduler()
        _ = try scheduler.schedule(id: shared, owner: Fixture.owner, definition: Fixture.alarm(7, 0), now: sunday)
        let owners = try #require(scheduler.record(for: ownersKey))

        let (alarm, outcome) = try scheduler.schedule(
            id: shared, owner: Fixture.stranger, definition: Fixture.alarm(7, 0, postAlert: 300), now: sunday.addingTimeInterval(60))
        #expect(alarm.id == shared)
        #expect(outcome.changedOwners == [Fixture.stranger])
        #expect(outcome.events == [.scheduled(strangersKey)])
        #expect(scheduler.record(for: ownersKey) == owners)
        #expect(scheduler.alarms(of: Fixture.owner) == [owners.alarm])
        #expect(scheduler.alarms(of: Fixture.stranger) == [alarm])
        #expect(scheduler.alarmCount == 2)

        let rang = scheduler.evaluate(now: sevenMonday)
        #expect(Set(rang.events) == [.alertStarted(ownersKey, lateBy: 0), .alertStarted(strangersKey, lateBy: 0)])
        #expect(scheduler.alertingOrder == [strangersKey, ownersKey])
        #expect(scheduler.presentationState(for: ownersKey)?.alarmID == shared)

        // The stranger snoozes its own: the owner's rings on.
        _ = try scheduler.perform(.countdown, id: shared, owner: Fixture.stranger, now: sevenMonday.addingTimeInterval(10))
        #expect(scheduler.alertingOrder == [ownersKey])
        #expect(scheduler.record(for: strangersKey)?.phase.state == .countdown)
        // The owner stops its one-shot: it is gone, the stranger's snooze goes on.
        let stopped = try scheduler.perform(.stop, id: shared, owner: Fixture.owner, now: sevenMonday.addingTimeInterval(20))
        #expect(stopped.events == [.stopped(ownersKey), .removed(ownersKey)])
        #expect(scheduler.record(for: ownersKey) == nil)
        #expect(scheduler.record(for: strangersKey)?.phase.state == .countdown)
        #expect(scheduler.nextDeadline == sevenMonday.addingTimeInterval(310))

        // A restart from the snapshot keeps them apart.
        let restored = AlarmScheduler(
            policy: scheduler.policy, timeZone: scheduler.timeZone, clockTrusted: true, snapshot: scheduler.snapshot)
        #expect(restored.snapshot == scheduler.snapshot)
        #expect(restored.alarms(of: Fixture.stranger) == scheduler.alarms(of: Fixture.stranger))
        #expect(restored.alarms(of: Fixture.owner).isEmpty)
    }

    @Test func anIDOnlyAnotherClientUsesIsNotFoundExactlyAsAnUnusedOne() throws {
        var scheduler = Fixture.scheduler()
        _ = try scheduler.schedule(id: shared, owner: Fixture.owner, definition: Fixture.timer(600), now: sunday)
        let unused = Alarm.ID()
        let before = scheduler.snapshot
        for action in AlarmCommand.allCases {
            let onShared = refusal { _ = try scheduler.perform(action, id: shared, owner: Fixture.stranger, now: sunday) }
            let onUnused = refusal { _ = try scheduler.perform(action, id: unused, owner: Fixture.stranger, now: sunday) }
            #expect(onShared == .notFound(shared))
            #expect(onUnused == .notFound(unused))
            #expect("\(onShared.map { "\($0)" } ?? "")".replacing(shared.uuidString, with: unused.uuidString) == "\(onUnused.map { "\($0)" } ?? "")")
            #expect(scheduler.snapshot == before, "\(action) on another client's id changed something")
        }
    }

    @Test func aClientsOwnIDUsedAgainIsADuplicateAndChangesNothing() throws {
        var scheduler = Fixture.scheduler()
        _ = try scheduler.schedule(id: shared, owner: Fixture.owner, definition: Fixture.timer(600), now: sunday)
        _ = try scheduler.schedule(id: shared, owner: Fixture.stranger, definition: Fixture.timer(60), now: sunday)
        let before = scheduler.snapshot
        #expect(throws: AlarmOperationError.duplicateID(shared)) {
            _ = try scheduler.schedule(id: shared, owner: Fixture.stranger, definition: Fixture.alarm(7, 0), now: sunday)
        }
        #expect(scheduler.snapshot == before)
    }

    private func refusal(_ body: () throws -> Void) -> AlarmOperationError? {
        do {
            try body()
            return nil
        } catch {
            return error as? AlarmOperationError
        }
    }
}
