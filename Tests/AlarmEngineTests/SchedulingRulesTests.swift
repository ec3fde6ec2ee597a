import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTime
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

    @Test func oneClientCannotUseUpTheDevicesLimit() throws {
        var scheduler = Fixture.scheduler(policy: EnginePolicy(maximumAlarms: 10, maximumAlarmsPerClient: 3))
        for _ in 0..<3 { try scheduler.add(Fixture.timer(60), now: now) }
        #expect(throws: AlarmManager.AlarmError.maximumLimitReached) {
            try scheduler.add(Fixture.timer(60), now: now)
        }
        // Another client still has its share.
        _ = try scheduler.schedule(id: Alarm.ID(), owner: Fixture.stranger, definition: Fixture.timer(60), now: now)
        #expect(scheduler.alarmCount == 4)
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

    /// The last instant of year 9999, and the first of 10000.
    static let lastAcceptedSecond: TimeInterval = 253_402_300_799
    static let firstRefusedSecond: TimeInterval = 253_402_300_800

    @Test(arguments: [(0, "1970-01-01T00:00:00+00:00"), (lastAcceptedSecond, "9999-12-31T23:59:59+00:00")])
    func aFixedDateAtEitherBoundIsAcceptedAndPrintedBackExactly(_ seconds: TimeInterval, _ text: String) throws {
        let date = Date(timeIntervalSince1970: seconds)
        // An untrusted clock (a Pi just booted) refuses nothing for being in the past.
        var scheduler = Fixture.scheduler(.utc, trusted: false)
        let id = try scheduler.add(Fixture.fixed(date), now: Date(timeIntervalSince1970: 0))
        let kept = try #require(scheduler.record(for: AlarmKey(owner: Fixture.owner, id: id)))
        #expect(kept.definition.schedule == .fixed(date))
        guard case .fixed(let stored)? = kept.definition.schedule else { return }
        #expect(ISO8601.format(stored, in: .utc) == text)
        #expect(ISO8601.parse(text) == date)
        // As the store and the control socket carry it: seconds since 1970, unchanged.
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        #expect(try decoder.decode(AlarmDefinition.self, from: encoder.encode(kept.definition)) == kept.definition)
    }

    // Seconds since 1970, not dates: Foundation's description of a NaN date traps.
    @Test(arguments: [
        firstRefusedSecond, -0.001, -1, 1e18, -1e18, .nan, .infinity, -.infinity, Date.distantPast.timeIntervalSince1970,
    ])
    func aFixedDateOutsideTheRangeIsRefusedWithTheRange(_ seconds: TimeInterval) {
        var scheduler = Fixture.scheduler(.utc, trusted: false)
        let date = Date(timeIntervalSince1970: seconds)
        let error = #expect(throws: AlarmOperationError.self) { try scheduler.add(Fixture.fixed(date), now: now) }
        guard case .invalidConfiguration(let reason)? = error else { return }
        #expect(reason.hasPrefix("schedule.fixed is "), "\(reason)")
        #expect(reason.hasSuffix("a fixed date must be from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z"), "\(reason)")
        #expect(scheduler.alarmCount == 0)
    }

    @Test(arguments: [AlarmDefinition.minimumCountdown, 0.25, 540.125, AlarmDefinition.maximumCountdown])
    func aCountdownWithinTheBoundsIsAcceptedExactly(_ seconds: TimeInterval) throws {
        var scheduler = Fixture.scheduler()
        let timer = try scheduler.add(Fixture.timer(seconds), now: now)
        #expect(scheduler.record(for: AlarmKey(owner: Fixture.owner, id: timer))?.definition.countdownDuration == .init(preAlert: seconds, postAlert: seconds))
        let snoozing = try scheduler.add(Fixture.alarm(7, 0, preAlert: seconds, postAlert: seconds), now: now)
        #expect(scheduler.record(for: AlarmKey(owner: Fixture.owner, id: snoozing))?.definition.countdownDuration == .init(preAlert: seconds, postAlert: seconds))
    }

    @Test(arguments: [
        AlarmDefinition.maximumCountdown.nextUp, AlarmDefinition.maximumCountdown + 1, AlarmDefinition.minimumCountdown.nextDown,
        .leastNonzeroMagnitude, 0, -0.001, 1e300, .greatestFiniteMagnitude, .infinity, -.infinity, .nan,
    ])
    func aCountdownOutsideTheBoundsIsRefusedWithTheBounds(_ seconds: TimeInterval) {
        var scheduler = Fixture.scheduler()
        for definition in [Fixture.timer(seconds), Fixture.alarm(7, 0, preAlert: seconds), Fixture.alarm(7, 0, postAlert: seconds)] {
            let error = #expect(throws: AlarmOperationError.self) { try scheduler.add(definition, now: now) }
            guard case .invalidConfiguration(let reason)? = error else { continue }
            #expect(reason.hasSuffix("s; it must be from 0.001 to 31622400 s"), "\(reason)")
        }
        #expect(scheduler.alarmCount == 0)
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

    @Test func alarmsDueTogetherStartInTheOrderTheyWereScheduled() throws {
        var scheduler = Fixture.scheduler()
        let ids = try (0..<20).map { _ in try scheduler.add(Fixture.alarm(7, 0), now: now) }
        // Recomputing every deadline must not reorder them (it walks the alarms in hash order).
        _ = scheduler.timeZoneChanged(to: Fixture.berlin, now: now)
        let due = try #require(scheduler.nextDeadline)
        #expect(scheduler.evaluate(now: due).alertStarts == ids)
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
