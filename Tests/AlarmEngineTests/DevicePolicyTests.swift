import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTime
import FoundationEssentials
import Testing

@testable import AlarmEngine

/// "What a device must decide" in ALARMKIT.md. Monday 2026-11-23 in Berlin (UTC+1) unless said.
@Suite struct DevicePolicyTests {
    let sunday = Fixture.at("2026-11-22T20:00:00+01:00")
    let sevenMonday = Fixture.at("2026-11-23T07:00:00+01:00")

    // MARK: Missed alarms and the grace period

    @Test func anAlarmPassedWhileOffRingsLateWithinTheGracePeriod() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        let outcome = scheduler.evaluate(now: sevenMonday.addingTimeInterval(30 * 60))
        #expect(outcome.events.contains(.alertStarted(Fixture.key(id), lateBy: 30 * 60)))
        #expect(scheduler.missedAlarms.isEmpty)
    }

    @Test func anAlarmLaterThanTheGracePeriodIsRecordedAsMissedAndAOneShotIsGone() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        let outcome = scheduler.evaluate(now: sevenMonday.addingTimeInterval(30 * 60 + 1))
        #expect(outcome.alertStarts.isEmpty)
        #expect(outcome.missed.map(\.alarmID) == [id])
        #expect(scheduler.missedAlarms.first?.reason == .tooLate)
        #expect(scheduler.missedAlarms.first?.dueDate == sevenMonday)
        #expect(scheduler.record(for: Fixture.key(id)) == nil)
    }

    @Test func aRepeatingAlarmMissedForDaysRecordsEveryOccurrenceAndRingsTheLatestWithinGrace() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: Fixture.everyDay), now: sunday)
        // Off from Sunday evening to Thursday 07:10: Monday to Wednesday were missed, Thursday rings late.
        let thursday = Fixture.at("2026-11-26T07:10:00+01:00")
        let outcome = scheduler.evaluate(now: thursday)
        #expect(outcome.missed.map(\.occurrences) == [3])
        #expect(outcome.missed.first?.dueDate == Fixture.at("2026-11-25T07:00:00+01:00"))
        #expect(outcome.alertStarts == [id])
        _ = try scheduler.act(.stop, id, now: thursday)
        #expect(scheduler.nextDeadline == Fixture.at("2026-11-27T07:00:00+01:00"))
    }

    @Test func aRepeatingAlarmMissedBeyondGraceMovesOnToItsNextOccurrence() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: [.monday]), now: sunday)
        _ = scheduler.evaluate(now: sevenMonday.addingTimeInterval(3 * 3600))
        #expect(scheduler.missedAlarms.count == 1)
        #expect(scheduler.state(of: id) == .scheduled)
        #expect(scheduler.nextDeadline == Fixture.at("2026-11-30T07:00:00+01:00"))
    }

    @Test func aTimerThatEndedWhileOffRingsLateOrIsMissed() throws {
        var scheduler = Fixture.scheduler()
        let late = try scheduler.add(Fixture.timer(60), now: sunday)
        let lost = try scheduler.add(Fixture.timer(60), now: sunday.addingTimeInterval(-31 * 60 - 60))
        let outcome = scheduler.evaluate(now: sunday.addingTimeInterval(20 * 60))
        #expect(outcome.alertStarts == [late])
        #expect(outcome.missed.map(\.alarmID) == [lost])
    }

    // MARK: Auto-silence

    @Test func anUnansweredAlertStopsAfterAutoSilenceAndCountsAsMissed() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: [.monday]), now: sunday)
        _ = scheduler.evaluate(now: sevenMonday)
        #expect(scheduler.nextDeadline == sevenMonday.addingTimeInterval(15 * 60))
        let outcome = scheduler.evaluate(now: sevenMonday.addingTimeInterval(15 * 60))
        #expect(outcome.events.contains(.autoSilenced(Fixture.key(id))))
        #expect(scheduler.missedAlarms.map(\.reason) == [.unanswered])
        #expect(scheduler.state(of: id) == .scheduled)
        #expect(scheduler.nextDeadline == Fixture.at("2026-11-30T07:00:00+01:00"))
    }

    @Test func autoSilenceZeroRingsUntilStopped() throws {
        var scheduler = Fixture.scheduler(policy: EnginePolicy(autoSilence: 0))
        let id = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        _ = scheduler.evaluate(now: sevenMonday)
        #expect(scheduler.nextDeadline == nil)
        #expect(scheduler.evaluate(now: sevenMonday.addingTimeInterval(86_400)).events.isEmpty)
        #expect(scheduler.state(of: id) == .alerting)
    }

    // MARK: Overlap

    @Test func overlappingAlertsPresentTheNewestFirstAndStopRevealsTheNext() throws {
        var scheduler = Fixture.scheduler()
        let first = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        let second = try scheduler.add(Fixture.alarm(7, 2), now: sunday)
        _ = scheduler.evaluate(now: sevenMonday)
        _ = scheduler.evaluate(now: sevenMonday.addingTimeInterval(120))
        #expect(scheduler.alertingOrder.map(\.id) == [second, first])
        _ = try scheduler.act(.stop, second, now: sevenMonday.addingTimeInterval(130))
        #expect(scheduler.alertingOrder.map(\.id) == [first])
    }

    @Test func alarmsDueAtTheSameInstantAllRing() throws {
        var scheduler = Fixture.scheduler()
        let ids = try (0..<5).map { _ in try scheduler.add(Fixture.alarm(7, 0), now: sunday) }
        #expect(Set(scheduler.evaluate(now: sevenMonday).alertStarts) == Set(ids))
        #expect(scheduler.alertingOrder.count == 5)
    }

    @Test func alertsDueAtTheSameInstantArePresentedTheLastScheduledFirst() throws {
        var scheduler = Fixture.scheduler()
        // Ids rising in creation order, so that an order by id would present the first one first.
        let ids = (1...4).map { UUID(uuidString: "0000000\($0)-0000-4000-8000-000000000000")! }
        for (minute, id) in ids.enumerated() {
            try scheduler.add(Fixture.alarm(7, 0), now: sunday.addingTimeInterval(Double(minute) * 60), id: id)
        }
        _ = scheduler.evaluate(now: sevenMonday)
        #expect(scheduler.alertingOrder.map(\.id) == ids.reversed())
        // Stopping the presented one presents the one scheduled before it.
        _ = try scheduler.act(.stop, ids[3], now: sevenMonday.addingTimeInterval(10))
        #expect(scheduler.alertingOrder.map(\.id) == [ids[2], ids[1], ids[0]])
        // The order survives a restart.
        let restored = AlarmScheduler(
            policy: scheduler.policy, timeZone: scheduler.timeZone, clockTrusted: true, snapshot: scheduler.snapshot)
        #expect(restored.alertingOrder.map(\.id) == [ids[2], ids[1], ids[0]])
    }

    // MARK: Clients' figures

    @Test func aClientsSummaryCountsOnlyItsOwnAlarmsAndTheDevicesEveryones() throws {
        var scheduler = Fixture.scheduler()
        _ = try scheduler.schedule(id: Alarm.ID(), owner: Fixture.stranger, definition: Fixture.alarm(6, 30), now: sunday)
        _ = try scheduler.schedule(id: Alarm.ID(), owner: Fixture.stranger, definition: Fixture.alarm(7, 0), now: sunday)
        let own = try scheduler.add(Fixture.alarm(8, 0), now: sunday)
        _ = scheduler.evaluate(now: sevenMonday.addingTimeInterval(-30 * 60))

        let mine = scheduler.summary(of: Fixture.owner)
        #expect(mine.alarmCount == 1)
        #expect(mine.alertingCount == 0)
        #expect(mine.nextAlarm?.record.id == own)
        #expect(mine.nextAlarm?.dueDate == Fixture.at("2026-11-23T08:00:00+01:00"))
        let theirs = scheduler.summary(of: Fixture.stranger)
        #expect(theirs.alarmCount == 2)
        #expect(theirs.alertingCount == 1)
        #expect(theirs.nextAlarm?.dueDate == sevenMonday)
        let device = scheduler.summary(of: nil)
        #expect(device.alarmCount == 3)
        #expect(device.alertingCount == 1)
        #expect(device.nextAlarm?.dueDate == sevenMonday)
        #expect(scheduler.summary(of: ClientID(rawValue: 4242)) == AlarmSummary(alarmCount: 0, alertingCount: 0, nextAlarm: nil))
    }

    @Test func theUpcomingInstantsAreEveryScheduledAlarmsSoonestFirstEachOnce() throws {
        var scheduler = Fixture.scheduler()
        _ = try scheduler.add(Fixture.alarm(8, 0), now: sunday)
        _ = try scheduler.add(Fixture.alarm(6, 30), now: sunday)
        _ = try scheduler.schedule(id: Alarm.ID(), owner: Fixture.stranger, definition: Fixture.alarm(6, 30), now: sunday)
        _ = try scheduler.schedule(id: Alarm.ID(), owner: Fixture.stranger, definition: Fixture.alarm(7, 0), now: sunday)
        let times = ["2026-11-23T06:30:00+01:00", "2026-11-23T07:00:00+01:00", "2026-11-23T08:00:00+01:00"].map(Fixture.at)
        #expect(scheduler.summary(of: nil).upcoming == times)
        #expect(scheduler.summary(of: Fixture.owner).upcoming == [times[0], times[2]], "a client's own alarms only")
        // Ringing, it is no longer upcoming.
        _ = scheduler.evaluate(now: times[0])
        #expect(scheduler.summary(of: nil).upcoming == [times[1], times[2]])
        for hour in 9..<(10 + AlarmSummary.upcomingLimit) {
            _ = try scheduler.add(Fixture.alarm(hour % 24, 0), now: times[0])
        }
        #expect(scheduler.summary(of: nil).upcoming.count == AlarmSummary.upcomingLimit)
    }

    // MARK: Clock jumps

    @Test func aBackwardJumpAfterAnAlarmRangDoesNotRingItAgain() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: Fixture.everyDay), now: sunday)
        _ = scheduler.evaluate(now: sevenMonday)
        _ = try scheduler.act(.stop, id, now: sevenMonday.addingTimeInterval(60))
        // NTP steps the clock back an hour: 07:01 becomes 06:01, before 07:00 again.
        let outcome = scheduler.clockChanged(jump: -3600, now: sevenMonday.addingTimeInterval(60 - 3600))
        #expect(outcome.alertStarts.isEmpty)
        #expect(scheduler.nextDeadline == Fixture.at("2026-11-24T07:00:00+01:00"))
    }

    @Test func aForwardJumpOverAnAlarmRingsItLateOrRecordsItMissed() throws {
        var scheduler = Fixture.scheduler()
        let near = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        let far = try scheduler.add(Fixture.alarm(6, 0), now: sunday)
        let outcome = scheduler.clockChanged(jump: 9 * 3600, now: sevenMonday.addingTimeInterval(10 * 60))
        #expect(outcome.alertStarts == [near])
        #expect(outcome.missed.map(\.alarmID) == [far])
    }

    @Test func timersAndSnoozesKeepTheirRemainingTimeAcrossAJump() throws {
        var scheduler = Fixture.scheduler()
        let timer = try scheduler.add(Fixture.timer(600), now: sunday)
        let alarm = try scheduler.add(Fixture.fixed(sunday, postAlert: 540), now: sunday)
        _ = try scheduler.act(.countdown, alarm, now: sunday)
        let jumped = sunday.addingTimeInterval(100 + 7200)
        let outcome = scheduler.clockChanged(jump: 7200, now: jumped)
        #expect(outcome.alertStarts.isEmpty)
        #expect(outcome.changedOwners == [Fixture.owner], "the shifted countdowns must be saved")
        #expect(scheduler.record(for: Fixture.key(timer)).flatMap { if case .countdown(let c) = $0.phase { c.fireDate } else { nil } }
                == sunday.addingTimeInterval(600 + 7200))
        #expect(scheduler.record(for: Fixture.key(alarm)).flatMap { if case .countdown(let c) = $0.phase { c.fireDate } else { nil } }
                == sunday.addingTimeInterval(540 + 7200))
    }

    @Test func anAlertKeepsItsRemainingAutoSilenceTimeAcrossAJump() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        _ = scheduler.evaluate(now: sevenMonday)
        _ = scheduler.clockChanged(jump: -1800, now: sevenMonday.addingTimeInterval(60 - 1800))
        #expect(scheduler.state(of: id) == .alerting)
        #expect(scheduler.nextDeadline == sevenMonday.addingTimeInterval(15 * 60 - 1800))
    }

    // MARK: Time zones

    @Test func aRelativeAlarmFollowsAZoneChangeAndAFixedOneKeepsItsInstant() throws {
        var scheduler = Fixture.scheduler()
        let relative = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        let fixedInstant = Fixture.at("2026-11-23T09:00:00+01:00")
        let fixed = try scheduler.add(Fixture.fixed(fixedInstant), now: sunday)
        _ = scheduler.timeZoneChanged(to: Fixture.zone("America/New_York"), now: sunday)
        let newYorkSeven = Fixture.at("2026-11-23T07:00:00-05:00")
        #expect(scheduler.evaluate(now: fixedInstant).alertStarts == [fixed])
        #expect(scheduler.evaluate(now: newYorkSeven).alertStarts == [relative])
    }

    @Test func aZoneChangeEastwardOverAnAlarmRingsItLateWithinGraceOrRecordsItMissed() throws {
        let sixTwentyInBerlin = sevenMonday.addingTimeInterval(-40 * 60)
        // 06:20 in Berlin is 07:20 in Helsinki: the 07:00 alarm there is 20 minutes late and rings.
        var helsinki = Fixture.scheduler()
        let ringing = try helsinki.add(Fixture.alarm(7, 0), now: sunday)
        #expect(helsinki.timeZoneChanged(to: Fixture.zone("Europe/Helsinki"), now: sixTwentyInBerlin).alertStarts == [ringing])
        // ... and 08:20 in Moscow: 80 minutes late, beyond grace, recorded as missed.
        var moscow = Fixture.scheduler()
        let missed = try moscow.add(Fixture.alarm(7, 0), now: sunday)
        #expect(moscow.timeZoneChanged(to: Fixture.zone("Europe/Moscow"), now: sixTwentyInBerlin).missed.map(\.alarmID) == [missed])
    }

    // MARK: Untrusted clock

    @Test func nothingScheduledRingsWhileTheClockIsUntrustedButTimersDo() throws {
        let bogus = Fixture.at("1970-01-01T00:05:00Z")
        var scheduler = Fixture.scheduler(trusted: false)
        let fixed = try scheduler.add(Fixture.fixed(bogus.addingTimeInterval(60)), now: bogus)
        let relative = try scheduler.add(Fixture.alarm(0, 10, weekly: Fixture.everyDay), now: bogus)
        let timer = try scheduler.add(Fixture.timer(120), now: bogus)
        #expect(scheduler.evaluate(now: bogus.addingTimeInterval(120)).alertStarts == [timer])
        _ = try scheduler.act(.stop, timer, now: bogus.addingTimeInterval(130))
        #expect(scheduler.evaluate(now: bogus.addingTimeInterval(3600)).events.isEmpty)
        #expect(scheduler.state(of: fixed) == .scheduled)
        #expect(scheduler.state(of: relative) == .scheduled)
        #expect(scheduler.missedAlarms.isEmpty)

        // NTP sets the real time: the relative alarm gets its first occurrence from the real clock.
        let real = Fixture.at("2026-11-23T06:00:00+01:00")
        _ = scheduler.clockChanged(jump: nil, now: real)
        let trustedOutcome = scheduler.setClockTrusted(true, now: real)
        #expect(trustedOutcome.alertStarts.isEmpty)
        #expect(scheduler.missedAlarms.map(\.alarmID) == [fixed])
        #expect(scheduler.nextDeadline == Fixture.at("2026-11-24T00:10:00+01:00"))
    }

    // MARK: Daylight saving (the wall-time policy itself is tested table by table in AlarmTimeTests)

    @Test func aWeeklyAlarmInTheSpringGapRingsShiftedByTheGap() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(2, 30, weekly: [.sunday]), now: Fixture.at("2026-03-27T12:00:00Z"))
        #expect(scheduler.nextDeadline == Fixture.at("2026-03-29T03:30:00+02:00"))
        _ = scheduler.evaluate(now: Fixture.at("2026-03-29T03:30:00+02:00"))
        _ = try scheduler.act(.stop, id, now: Fixture.at("2026-03-29T03:31:00+02:00"))
        #expect(scheduler.nextDeadline == Fixture.at("2026-04-05T02:30:00+02:00"))
    }

    @Test func aWeeklyAlarmInTheRepeatedHourRingsOnceAtTheFirstOccurrence() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(2, 30, weekly: [.sunday]), now: Fixture.at("2026-10-23T12:00:00Z"))
        let first = Fixture.at("2026-10-25T02:30:00+02:00")
        #expect(scheduler.nextDeadline == first)
        #expect(scheduler.evaluate(now: first).alertStarts == [id])
        _ = try scheduler.act(.stop, id, now: first.addingTimeInterval(60))
        // The second 02:30 (+01:00) an hour later does not ring again.
        var rang = 0
        for minute in stride(from: 2, through: 180, by: 1) {
            rang += scheduler.evaluate(now: first.addingTimeInterval(Double(minute * 60))).alertStarts.count
        }
        #expect(rang == 0)
        #expect(scheduler.nextDeadline == Fixture.at("2026-11-01T02:30:00+01:00"))
    }
}

/// A board without a real-time clock: a power cut, a boot at 1970, NTP setting the clock.
@Suite struct BootWithoutRealTimeClockTests {
    let real = Fixture.at("2026-11-23T06:50:00+01:00")
    let boot = Fixture.at("1970-01-01T00:00:20Z")

    @Test func aTimerFromBeforeThePowerCutKeepsItsRealEndWhenNTPSetsTheClock() throws {
        var before = Fixture.scheduler()
        let timer = try before.add(Fixture.timer(600), now: real)
        let snooze = try before.add(Fixture.fixed(real, postAlert: 540), now: real)
        _ = try before.act(.countdown, snooze, now: real)

        // Two minutes without power; the board boots believing it is 1970.
        var after = AlarmScheduler(policy: .default, timeZone: Fixture.berlin, clockTrusted: false, snapshot: before.snapshot)
        _ = after.evaluate(now: boot)
        let synced = real.addingTimeInterval(120)
        _ = after.clockChanged(jump: synced.timeIntervalSince(boot), now: synced)
        _ = after.setClockTrusted(true, now: synced)
        #expect(after.nextDeadline == real.addingTimeInterval(540))
        #expect(after.evaluate(now: real.addingTimeInterval(540)).alertStarts == [snooze])
        #expect(after.evaluate(now: real.addingTimeInterval(600)).alertStarts == [timer])
    }

    @Test func aTimerStartedUnderTheBogusClockKeepsItsRemainingTimeWhenNTPSetsIt() throws {
        var scheduler = Fixture.scheduler(trusted: false)
        let timer = try scheduler.add(Fixture.timer(600), now: boot)
        let synced = real
        _ = scheduler.clockChanged(jump: synced.timeIntervalSince(boot.addingTimeInterval(100)), now: synced)
        _ = scheduler.setClockTrusted(true, now: synced)
        // 100 s had passed on the bogus clock: 500 s remain on the real one.
        #expect(scheduler.nextDeadline == synced.addingTimeInterval(500))
        #expect(scheduler.evaluate(now: synced.addingTimeInterval(500)).alertStarts == [timer])
        #expect(scheduler.record(for: Fixture.key(timer))?.datesFromUntrustedClock == false)
    }
}
