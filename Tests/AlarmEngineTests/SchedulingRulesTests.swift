import AlarmKit
import FoundationEssentials
import Testing

@testable import AlarmEngine

/// Scheduling requests the engine refuses, and the device-wide limit.
@Suite struct SchedulingRulesTests {
    let now = Fixture.at("2026-11-22T20:00:00+01:00")

    @Test func aDuplicateIDIsRefused() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.timer(60), now: now)
        #expect(throws: AlarmOperationError.duplicateID(id)) {
            try scheduler.add(Fixture.alarm(7, 0), now: now, id: id)
        }
    }

    @Test func theDeviceWideLimitGivesMaximumLimitReached() throws {
        var scheduler = Fixture.scheduler(policy: EnginePolicy(maximumAlarms: 2))
        try scheduler.add(Fixture.timer(60), now: now)
        _ = try scheduler.schedule(id: Alarm.ID(), owner: Fixture.stranger, definition: Fixture.timer(60), now: now)
        #expect(throws: AlarmManager.AlarmError.maximumLimitReached) {
            try scheduler.add(Fixture.timer(60), now: now)
        }
        #expect(scheduler.alarmCount == 2)
    }

    static let invalidDefinitions: [(String, AlarmDefinition)] = [
        ("no schedule and no preAlert", AlarmDefinition(schedule: nil, countdownDuration: nil, presentation: Fixture.presentation())),
        ("zero timer", Fixture.timer(0)),
        ("negative timer", Fixture.timer(-5)),
        ("infinite timer", Fixture.timer(.infinity)),
        ("NaN timer", Fixture.timer(.nan)),
        ("hour 24", Fixture.alarm(24, 0)),
        ("minute 60", Fixture.alarm(7, 60)),
        ("negative hour", Fixture.alarm(-1, 0)),
        ("weekly on no day", Fixture.alarm(7, 0, weekly: [])),
        ("sound with a path", AlarmDefinition(
            schedule: nil, countdownDuration: .init(preAlert: 60, postAlert: nil), presentation: Fixture.presentation(),
            sound: .named("../../etc/shadow"))),
        ("a huge title", AlarmDefinition(
            schedule: nil, countdownDuration: .init(preAlert: 60, postAlert: nil),
            presentation: Fixture.presentation(String(repeating: "x", count: 10_000)))),
    ]

    @Test(arguments: invalidDefinitions)
    func anInvalidConfigurationIsRefusedWithItsReason(_ name: String, _ definition: AlarmDefinition) {
        var scheduler = Fixture.scheduler()
        #expect(throws: AlarmOperationError.self, "\(name)") {
            try scheduler.add(definition, now: now)
        }
        #expect(scheduler.alarmCount == 0)
    }

    @Test func aFixedAlarmFarInThePastIsRefusedButOneWithinGraceRingsAtOnce() throws {
        var scheduler = Fixture.scheduler()
        #expect(throws: AlarmOperationError.self) {
            try scheduler.add(Fixture.fixed(now.addingTimeInterval(-3600)), now: now)
        }
        let id = try scheduler.add(Fixture.fixed(now.addingTimeInterval(-60)), now: now)
        #expect(scheduler.state(of: id) == .alerting)
    }

    @Test func aClientsListIsInCreationOrderAndHoldsOnlyItsAlarms() throws {
        var scheduler = Fixture.scheduler()
        let first = try scheduler.add(Fixture.alarm(9, 0), now: now)
        _ = try scheduler.schedule(id: Alarm.ID(), owner: Fixture.stranger, definition: Fixture.timer(60), now: now)
        let second = try scheduler.add(Fixture.alarm(6, 0), now: now.addingTimeInterval(1))
        #expect(scheduler.alarms(of: Fixture.owner).map(\.id) == [first, second])
    }

    @Test func evaluatingEarlyOrTwiceIsHarmless() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: Fixture.everyDay), now: now)
        let due = try #require(scheduler.nextDeadline)
        let snapshot = scheduler.snapshot
        #expect(scheduler.evaluate(now: due.addingTimeInterval(-1)).events.isEmpty)
        #expect(scheduler.snapshot == snapshot)
        #expect(scheduler.evaluate(now: due).alertStarts == [id])
        let alerting = scheduler.snapshot
        #expect(scheduler.evaluate(now: due).events.isEmpty)
        #expect(scheduler.evaluate(now: due.addingTimeInterval(-30)).events.isEmpty)
        #expect(scheduler.snapshot == alerting)
    }

    @Test func aSnapshotRestoresTheSameScheduler() throws {
        var scheduler = Fixture.scheduler()
        try scheduler.add(Fixture.alarm(7, 0, weekly: [.monday]), now: now)
        let paused = try scheduler.add(Fixture.timer(600), now: now)
        _ = try scheduler.act(.pause, paused, now: now.addingTimeInterval(60))
        try scheduler.add(Fixture.fixed(now), now: now)
        let bytes = try AlarmStore.encode(StoredState(scheduler: scheduler.snapshot, savedAt: now))
        let decoded = try AlarmStore.decode(bytes)
        let restored = AlarmScheduler(policy: .default, timeZone: Fixture.berlin, clockTrusted: true, snapshot: decoded.scheduler)
        #expect(restored.snapshot == scheduler.snapshot)
        #expect(restored.nextDeadline == scheduler.nextDeadline)
        #expect(restored.alertingOrder == scheduler.alertingOrder)
    }
}
