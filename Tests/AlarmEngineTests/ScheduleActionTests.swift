import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTime
import FoundationEssentials
import Testing

@testable import AlarmEngine

/// Disable, enable and skip: the device's extensions to AlarmKit, in the pure scheduler.
///
/// Sunday 2026-11-22 20:00 in Berlin unless a test says otherwise; Monday is 2026-11-23.
@Suite struct ScheduleActionTests {
    let sunday = Fixture.at("2026-11-22T20:00:00+01:00")

    static func day(_ text: String) -> CivilDate { CivilDate(text)! }

    /// Every alert from `start` up to `end`, each stopped at once, as (local day, instant).
    static func alerts(_ scheduler: inout AlarmScheduler, from start: Date, to end: Date) throws -> [Date] {
        var rang: [Date] = []
        var now = start
        while let deadline = scheduler.nextDeadline, deadline <= end {
            now = max(now, deadline)
            let outcome = scheduler.evaluate(now: now)
            for id in outcome.alertStarts {
                rang.append(now)
                _ = try scheduler.act(.stop, id, now: now)
            }
        }
        return rang
    }

    @Test func aDisabledAlarmStaysListedButHasNoNextDateNeverRingsAndIsNeverMissed() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: Fixture.everyDay), now: sunday)
        let outcome = try scheduler.perform(.disable, id: id, owner: Fixture.owner, now: sunday)
        #expect(outcome.events == [.disabled(Fixture.key(id))])
        #expect(outcome.changedOwners == [Fixture.owner])
        let record = try #require(scheduler.record(for: Fixture.key(id)))
        #expect(!record.enabled && record.phase == .scheduled(nil))
        #expect(scheduler.nextDeadline == nil)
        #expect(scheduler.alarms(of: Fixture.owner).map(\.state) == [.scheduled])
        #expect(scheduler.summary(of: Fixture.owner).nextAlarm == nil)

        // Three days later, and a clock jump and a zone change on the way: nothing.
        var later = scheduler.clockChanged(jump: 86_400, now: sunday.addingTimeInterval(86_400))
        later.merge(scheduler.timeZoneChanged(to: Fixture.zone("America/New_York"), now: sunday.addingTimeInterval(86_400)))
        later.merge(scheduler.evaluate(now: sunday.addingTimeInterval(3 * 86_400)))
        #expect(later.alertStarts.isEmpty && later.missed.isEmpty && scheduler.missedAlarms.isEmpty)
        #expect(scheduler.record(for: Fixture.key(id))?.enabled == false)
    }

    @Test func aOneTimeAlarmEnabledAfterItsTimeRingsTomorrow() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 30), now: sunday)
        _ = try scheduler.perform(.disable, id: id, owner: Fixture.owner, now: sunday)
        let nine = Fixture.at("2026-11-23T09:00:00+01:00")
        #expect(scheduler.evaluate(now: nine).events.isEmpty)
        let outcome = try scheduler.perform(.enable, id: id, owner: Fixture.owner, now: nine)
        #expect(outcome.events == [.enabled(Fixture.key(id))])
        #expect(scheduler.record(for: Fixture.key(id))?.phase == .scheduled(.day(Self.day("2026-11-24"))))
        #expect(scheduler.nextDeadline == Fixture.at("2026-11-24T07:30:00+01:00"))
    }

    @Test func aFixedAlarmWhoseDatePassedCannotBeEnabledOneStillAheadCan() throws {
        var scheduler = Fixture.scheduler()
        let seven = Fixture.at("2026-11-23T07:00:00+01:00")
        let id = try scheduler.add(Fixture.fixed(seven), now: sunday)
        _ = try scheduler.perform(.disable, id: id, owner: Fixture.owner, now: sunday)
        _ = try scheduler.perform(.enable, id: id, owner: Fixture.owner, now: sunday)
        #expect(scheduler.nextDeadline == seven)

        _ = try scheduler.perform(.disable, id: id, owner: Fixture.owner, now: sunday)
        let before = scheduler.snapshot
        let error = #expect(throws: AlarmChangeRefusal.self) {
            try scheduler.perform(.enable, id: id, owner: Fixture.owner, now: seven.addingTimeInterval(3600))
        }
        #expect(error?.reason.contains("2026-11-23T07:00:00+01:00 has passed") == true)
        #expect(scheduler.snapshot == before)
    }

    @Test func aTimerCannotBeDisabledNorAnAlertingAlarmWhichMustBeStoppedFirst() throws {
        var scheduler = Fixture.scheduler()
        let timer = try scheduler.add(Fixture.timer(600), now: sunday)
        let ringing = try scheduler.add(Fixture.fixed(sunday), now: sunday)
        #expect(scheduler.state(of: ringing) == .alerting)
        let before = scheduler.snapshot
        for (id, reason) in [(timer, "timer"), (ringing, "stop it first")] {
            let error = #expect(throws: AlarmChangeRefusal.self) { try scheduler.perform(.disable, id: id, owner: Fixture.owner, now: sunday) }
            #expect(error?.reason.contains(reason) == true, "\(error?.reason ?? "")")
        }
        #expect(scheduler.snapshot == before)
    }

    @Test func anotherClientsIDIsNotFound() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: [.monday]), now: sunday)
        for action in AlarmCommand.allCases {
            #expect(throws: AlarmOperationError.notFound(id)) {
                try scheduler.perform(action, id: id, owner: Fixture.stranger, now: sunday)
            }
        }
        #expect(scheduler.record(for: Fixture.key(id))?.skippedDate == nil)
    }

    @Test func disablingTwiceAndEnablingAnEnabledAlarmChangeNothing() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        #expect(try !scheduler.perform(.enable, id: id, owner: Fixture.owner, now: sunday).hasChanges)
        _ = try scheduler.perform(.disable, id: id, owner: Fixture.owner, now: sunday)
        let disabled = scheduler.snapshot
        #expect(try !scheduler.perform(.disable, id: id, owner: Fixture.owner, now: sunday).hasChanges)
        #expect(scheduler.snapshot == disabled)
    }

    @Test func disablingASnoozeEndsItAndEnablingDoesNotRingThatDayAgain() throws {
        var scheduler = Fixture.scheduler()
        let seven = Fixture.at("2026-11-23T07:00:00+01:00")
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: Fixture.everyDay, postAlert: 540), now: sunday)
        _ = scheduler.evaluate(now: seven)
        _ = try scheduler.act(.countdown, id, now: seven)
        _ = try scheduler.perform(.disable, id: id, owner: Fixture.owner, now: seven.addingTimeInterval(60))
        let record = try #require(scheduler.record(for: Fixture.key(id)))
        #expect(record.phase == .scheduled(nil) && record.lastOccurrenceDay == Self.day("2026-11-23"))
        #expect(scheduler.evaluate(now: seven.addingTimeInterval(600)).events.isEmpty)
        // Even with the clock set back before 07:00, Monday has rung.
        _ = try scheduler.perform(.enable, id: id, owner: Fixture.owner, now: seven.addingTimeInterval(-3600))
        #expect(scheduler.record(for: Fixture.key(id))?.phase == .scheduled(.day(Self.day("2026-11-24"))))
    }

    @Test func aSkippedOccurrenceGoesByUnmissedAndTheOneAfterRings() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: [.monday, .wednesday]), now: sunday)
        let outcome = try scheduler.perform(.skip, id: id, owner: Fixture.owner, now: sunday)
        #expect(outcome.events == [.skipped(Fixture.key(id))])
        var record = try #require(scheduler.record(for: Fixture.key(id)))
        #expect(record.skippedDate == Self.day("2026-11-23"))
        #expect(record.phase == .scheduled(.day(Self.day("2026-11-25"))))
        #expect(scheduler.summary(of: Fixture.owner).nextAlarm?.dueDate == Fixture.at("2026-11-25T07:00:00+01:00"))

        // The skip is forgotten when Monday ends, and only Wednesday rings.
        #expect(scheduler.nextDeadline == Fixture.at("2026-11-24T00:00:00+01:00"))
        let midnight = scheduler.evaluate(now: Fixture.at("2026-11-24T00:00:00+01:00"))
        #expect(midnight.changedOwners == [Fixture.owner] && midnight.events.isEmpty)
        record = try #require(scheduler.record(for: Fixture.key(id)))
        #expect(record.skippedDate == nil)
        let rang = try Self.alerts(&scheduler, from: sunday, to: Fixture.at("2026-11-30T12:00:00+01:00"))
        #expect(rang == [Fixture.at("2026-11-25T07:00:00+01:00"), Fixture.at("2026-11-30T07:00:00+01:00")])
        #expect(scheduler.missedAlarms.isEmpty)
    }

    /// The night a zone's clocks change: the skipped day is that local day, whether its 02:30
    /// falls in the gap (rung at 03:30) or occurs twice, and the next day rings at its 02:30.
    @Test(arguments: [
        ("Europe/Berlin", "2026-03-29"), ("Europe/Berlin", "2026-10-25"),
        ("America/New_York", "2026-03-08"), ("America/New_York", "2026-11-01"),
    ])
    func aSkipAcrossADaylightSavingChangeSkipsExactlyThatDay(_ zoneName: String, _ changeDay: String) throws {
        let zone = Fixture.zone(zoneName)
        let change = Self.day(changeDay)
        let noonBefore = zone.instant(for: LocalDateTime(date: change.adding(days: -1), time: CivilTime(hour: 12, minute: 0)!))
        var scheduler = Fixture.scheduler(zone)
        let id = try scheduler.add(Fixture.alarm(2, 30, weekly: Fixture.everyDay), now: noonBefore)
        _ = try scheduler.perform(.skip, id: id, owner: Fixture.owner, now: noonBefore)
        #expect(scheduler.record(for: Fixture.key(id))?.skippedDate == change)

        let rang = try Self.alerts(&scheduler, from: noonBefore, to: noonBefore.addingTimeInterval(3 * 86_400))
        let days = rang.map { zone.localDateTime(at: $0).date }
        #expect(days == [change.adding(days: 1), change.adding(days: 2)])
        #expect(rang.map { zone.localDateTime(at: $0).time } == [CivilTime(hour: 2, minute: 30)!, CivilTime(hour: 2, minute: 30)!])
        #expect(scheduler.missedAlarms.isEmpty)
    }

    @Test func aSkipNamesTheLocalDayAndFollowsAZoneChange() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: Fixture.everyDay), now: sunday)
        _ = try scheduler.perform(.skip, id: id, owner: Fixture.owner, now: sunday)
        let newYork = Fixture.zone("America/New_York")
        _ = scheduler.timeZoneChanged(to: newYork, now: sunday)
        #expect(scheduler.record(for: Fixture.key(id))?.skippedDate == Self.day("2026-11-23"))
        let rang = try Self.alerts(&scheduler, from: sunday, to: Fixture.at("2026-11-24T12:00:00-05:00"))
        #expect(rang == [Fixture.at("2026-11-24T07:00:00-05:00")])
    }

    @Test func aClockJumpOverTheSkippedDayForgetsTheSkipAndCountsOnlyRealMisses() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: Fixture.everyDay), now: sunday)
        _ = try scheduler.perform(.skip, id: id, owner: Fixture.owner, now: sunday)

        // Backwards a day: the skip still names Monday, and ends with it.
        let saturday = sunday.addingTimeInterval(-86_400)
        _ = scheduler.clockChanged(jump: -86_400, now: saturday)
        #expect(scheduler.record(for: Fixture.key(id))?.skippedDate == Self.day("2026-11-23"))

        // Then forwards to Tuesday noon: Monday was skipped, only Tuesday's 07:00 is missed.
        let tuesdayNoon = Fixture.at("2026-11-24T12:00:00+01:00")
        let outcome = scheduler.clockChanged(jump: tuesdayNoon.timeIntervalSince(saturday), now: tuesdayNoon)
        #expect(outcome.missed.map(\.occurrences) == [1])
        #expect(outcome.missed.map(\.dueDate) == [Fixture.at("2026-11-24T07:00:00+01:00")])
        let record = try #require(scheduler.record(for: Fixture.key(id)))
        #expect(record.skippedDate == nil && record.phase == .scheduled(.day(Self.day("2026-11-25"))))
    }

    @Test func enableUndoesASkip() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: [.monday, .wednesday]), now: sunday)
        _ = try scheduler.perform(.skip, id: id, owner: Fixture.owner, now: sunday)
        // Skipping again does not skip a second day.
        #expect(try !scheduler.perform(.skip, id: id, owner: Fixture.owner, now: sunday).hasChanges)
        _ = try scheduler.perform(.enable, id: id, owner: Fixture.owner, now: sunday)
        let record = try #require(scheduler.record(for: Fixture.key(id)))
        #expect(record.skippedDate == nil && record.phase == .scheduled(.day(Self.day("2026-11-23"))))
    }

    @Test func skipIsRefusedForOneTimeTimersDisabledAndAlertingAlarms() throws {
        var scheduler = Fixture.scheduler()
        let once = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        let fixed = try scheduler.add(Fixture.fixed(sunday.addingTimeInterval(3600)), now: sunday)
        let timer = try scheduler.add(Fixture.timer(600), now: sunday)
        let disabled = try scheduler.add(Fixture.alarm(7, 0, weekly: [.monday]), now: sunday)
        _ = try scheduler.perform(.disable, id: disabled, owner: Fixture.owner, now: sunday)
        let ringing = try scheduler.add(Fixture.alarm(20, 0, weekly: [.sunday]), now: sunday.addingTimeInterval(-60))
        _ = scheduler.evaluate(now: sunday)
        #expect(scheduler.state(of: ringing) == .alerting)
        let before = scheduler.snapshot
        for (id, reason) in [(once, "weekly"), (fixed, "weekly"), (timer, "weekly"), (disabled, "disabled"), (ringing, "alerting")] {
            let error = #expect(throws: AlarmChangeRefusal.self) { try scheduler.perform(.skip, id: id, owner: Fixture.owner, now: sunday) }
            #expect(error?.reason.contains(reason) == true, "\(error?.reason ?? "")")
        }
        #expect(scheduler.snapshot == before)
    }

    @Test func skipWhileSnoozedSkipsTheOccurrenceAfterTheOneThatRang() throws {
        var scheduler = Fixture.scheduler()
        let seven = Fixture.at("2026-11-23T07:00:00+01:00")
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: Fixture.everyDay, postAlert: 540), now: sunday)
        _ = scheduler.evaluate(now: seven)
        _ = try scheduler.act(.countdown, id, now: seven)
        _ = try scheduler.perform(.skip, id: id, owner: Fixture.owner, now: seven.addingTimeInterval(60))
        #expect(scheduler.record(for: Fixture.key(id))?.skippedDate == Self.day("2026-11-24"))
        #expect(scheduler.state(of: id) == .countdown)

        let rang = try Self.alerts(&scheduler, from: seven, to: Fixture.at("2026-11-25T12:00:00+01:00"))
        #expect(rang == [seven.addingTimeInterval(540), Fixture.at("2026-11-25T07:00:00+01:00")])
    }

    @Test func skipDuringAPreAlertCountdownEndsItAndSkipsThatDay() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: Fixture.everyDay, preAlert: 600), now: sunday)
        let countingDown = Fixture.at("2026-11-23T06:55:00+01:00")
        _ = scheduler.evaluate(now: countingDown)
        #expect(scheduler.state(of: id) == .countdown)
        _ = try scheduler.perform(.skip, id: id, owner: Fixture.owner, now: countingDown)
        let record = try #require(scheduler.record(for: Fixture.key(id)))
        #expect(record.skippedDate == Self.day("2026-11-23"))
        #expect(record.phase == .scheduled(.day(Self.day("2026-11-24"))))
    }

    @Test func theNewFieldsSurviveTheStoreRoundTrip() throws {
        var scheduler = Fixture.scheduler()
        let skipped = try scheduler.add(Fixture.alarm(7, 0, weekly: [.monday]), now: sunday)
        let disabled = try scheduler.add(Fixture.alarm(8, 0), now: sunday)
        _ = try scheduler.perform(.skip, id: skipped, owner: Fixture.owner, now: sunday)
        _ = try scheduler.perform(.disable, id: disabled, owner: Fixture.owner, now: sunday)
        let state = StoredState(scheduler: scheduler.snapshot, authorizations: [], savedAt: sunday)
        let bytes = try AlarmStore.encode(state)
        #expect(try AlarmStore.decode(bytes) == state)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#""skippedDate":"2026-11-23""#))
        #expect(text.contains(#""enabled":true"#) && text.contains(#""enabled":false"#))
    }
}

/// The same through the runtime: durable, published and recorded like AlarmKit's actions.
@Suite(.timeLimit(.minutes(5))) struct ScheduleActionRuntimeTests {
    @Test func changesArePublishedRecordedInHistoryAndSurviveARestart() async throws {
        let rig = try EngineRig(now: Fixture.at("2026-11-22T20:00:00+01:00"))
        let weekly = Alarm.ID(), once = Alarm.ID()
        _ = try await rig.runtime.schedule(id: weekly, definition: Fixture.alarm(7, 0, weekly: [.monday, .wednesday]), client: Fixture.owner)
        _ = try await rig.runtime.schedule(id: once, definition: Fixture.alarm(7, 30), client: Fixture.owner)
        var updates = rig.runtime.alarmUpdates(for: Fixture.owner).makeAsyncIterator()
        #expect(await updates.nextElement()?.count == 2)

        try await rig.runtime.perform(.skip, id: weekly, client: Fixture.owner)
        #expect(await updates.nextElement()?.map(\.id) == [weekly, once])
        try await rig.runtime.perform(.disable, id: once, client: Fixture.owner)
        #expect(await updates.nextElement()?.map(\.state) == [.scheduled, .scheduled])
        // A no-op publishes nothing: the next element is the enable's.
        try await rig.runtime.perform(.disable, id: once, client: Fixture.owner)
        #expect(await rig.runtime.history(for: Fixture.owner).map(\.kind) == [.skipped, .disabled])

        let restarted = try rig.restarted()
        #expect(await restarted.record(for: Fixture.key(weekly))?.skippedDate == CivilDate("2026-11-23"))
        #expect(await restarted.record(for: Fixture.key(once))?.enabled == false)
        #expect(await restarted.alarmSummary(for: Fixture.owner).nextAlarm?.dueDate == Fixture.at("2026-11-25T07:00:00+01:00"))

        try await rig.runtime.perform(.enable, id: once, client: Fixture.owner)
        #expect(await updates.nextElement()?.count == 2)
        #expect(await rig.runtime.record(for: Fixture.key(once))?.phase == .scheduled(.day(CivilDate("2026-11-23")!)))
    }
}
