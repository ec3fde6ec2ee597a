import AlarmKitCore
import AlarmModel
import AlarmProtocol
import FoundationEssentials
import Testing

@testable import AlarmEngine

/// "Life of an alarm" in ALARMKIT.md, one transition per test. Monday 2026-11-23, Berlin (UTC+1).
@Suite struct AlarmLifeTests {
    let sunday = Fixture.at("2026-11-22T20:00:00+01:00")
    let sevenMonday = Fixture.at("2026-11-23T07:00:00+01:00")

    @Test func relativeAlarmIsScheduledUntilItsWallTimeThenAlerts() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        #expect(scheduler.state(of: id) == .scheduled)
        #expect(scheduler.nextDeadline == sevenMonday)

        #expect(scheduler.evaluate(now: sevenMonday.addingTimeInterval(-1)).events.isEmpty)
        let outcome = scheduler.evaluate(now: sevenMonday)
        #expect(outcome.alertStarts == [id])
        #expect(scheduler.state(of: id) == .alerting)
        #expect(scheduler.presentationState(for: Fixture.key(id))?.mode == .alert(.init(time: .init(hour: 7, minute: 0))))
    }

    @Test func timerCountsDownAtOnceAndAlertsWhenItEnds() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.timer(300), now: sunday)
        #expect(scheduler.state(of: id) == .countdown)
        #expect(scheduler.nextDeadline == sunday.addingTimeInterval(300))
        guard case .countdown(let countdown)? = scheduler.presentationState(for: Fixture.key(id))?.mode else {
            Issue.record("a running timer presents a countdown")
            return
        }
        #expect(countdown.totalCountdownDuration == 300)
        #expect(countdown.previouslyElapsedDuration == 0)
        #expect(countdown.fireDate == sunday.addingTimeInterval(300))

        #expect(scheduler.evaluate(now: sunday.addingTimeInterval(300)).alertStarts == [id])
    }

    @Test func alarmWithPreAlertCountsDownBeforeItsTime() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: Fixture.everyDay, preAlert: 600), now: sunday)
        #expect(scheduler.state(of: id) == .scheduled)
        #expect(scheduler.nextDeadline == sevenMonday.addingTimeInterval(-600))

        _ = scheduler.evaluate(now: sevenMonday.addingTimeInterval(-600))
        #expect(scheduler.state(of: id) == .countdown)
        #expect(scheduler.evaluate(now: sevenMonday).alertStarts == [id])
    }

    @Test func snoozeCountsDownThePostAlertDurationThenAlertsAgain() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0, postAlert: 9 * 60), now: sunday)
        _ = scheduler.evaluate(now: sevenMonday)

        _ = try scheduler.act(.countdown, id, now: sevenMonday.addingTimeInterval(5))
        #expect(scheduler.state(of: id) == .countdown)
        #expect(scheduler.nextDeadline == sevenMonday.addingTimeInterval(5 + 9 * 60))
        #expect(scheduler.evaluate(now: sevenMonday.addingTimeInterval(5 + 9 * 60)).alertStarts == [id])
    }

    @Test func snoozeFallsBackToThePreAlertDuration() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(
            AlarmDefinition(schedule: nil, countdownDuration: .init(preAlert: 60, postAlert: nil), presentation: Fixture.presentation()),
            now: sunday)
        _ = scheduler.evaluate(now: sunday.addingTimeInterval(60))
        _ = try scheduler.act(.countdown, id, now: sunday.addingTimeInterval(70))
        #expect(scheduler.nextDeadline == sunday.addingTimeInterval(130))
    }

    @Test func snoozeWithoutAnyCountdownDurationIsRefused() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        _ = scheduler.evaluate(now: sevenMonday)
        #expect(throws: AlarmOperationError.noCountdownDuration(id)) {
            try scheduler.act(.countdown, id, now: sevenMonday)
        }
        #expect(scheduler.state(of: id) == .alerting)
    }

    @Test func pausedTimeDoesNotCount() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.timer(300), now: sunday)
        _ = try scheduler.act(.pause, id, now: sunday.addingTimeInterval(100))
        #expect(scheduler.state(of: id) == .paused)
        #expect(scheduler.nextDeadline == nil)
        #expect(scheduler.presentationState(for: Fixture.key(id))?.mode == .paused(.init(totalCountdownDuration: 300, previouslyElapsedDuration: 100)))
        #expect(scheduler.evaluate(now: sunday.addingTimeInterval(3600)).events.isEmpty)

        _ = try scheduler.act(.resume, id, now: sunday.addingTimeInterval(3600))
        #expect(scheduler.state(of: id) == .countdown)
        #expect(scheduler.nextDeadline == sunday.addingTimeInterval(3600 + 200))
        #expect(scheduler.evaluate(now: sunday.addingTimeInterval(3800)).alertStarts == [id])
    }

    @Test func stoppingAOneShotDeletesIt() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        _ = scheduler.evaluate(now: sevenMonday)
        let outcome = try scheduler.act(.stop, id, now: sevenMonday.addingTimeInterval(30))
        #expect(scheduler.record(for: Fixture.key(id)) == nil)
        #expect(outcome.events.contains(.removed(Fixture.key(id))))
        #expect(scheduler.alarms(of: Fixture.owner).isEmpty)
    }

    @Test func stoppingARepeatingAlarmSchedulesItsNextOccurrence() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: [.monday, .wednesday]), now: sunday)
        _ = scheduler.evaluate(now: sevenMonday)
        _ = try scheduler.act(.stop, id, now: sevenMonday.addingTimeInterval(30))
        #expect(scheduler.state(of: id) == .scheduled)
        #expect(scheduler.nextDeadline == Fixture.at("2026-11-25T07:00:00+01:00"))
    }

    @Test func stoppingARepeatingAlarmWhosePreAlertAlreadyStartedCountsDown() throws {
        var scheduler = Fixture.scheduler()
        // Every day at 07:00 with a countdown of a day less 30 s: the next countdown starts at 07:00:30.
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: Fixture.everyDay, preAlert: 86_370), now: sunday)
        _ = scheduler.evaluate(now: sevenMonday)
        #expect(scheduler.state(of: id) == .alerting)
        _ = try scheduler.act(.stop, id, now: sevenMonday.addingTimeInterval(60))
        #expect(scheduler.state(of: id) == .countdown)
        #expect(scheduler.nextDeadline == sevenMonday.addingTimeInterval(24 * 3600))
    }

    @Test func stoppingARunningTimerDeletesIt() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.timer(300), now: sunday)
        _ = try scheduler.act(.stop, id, now: sunday.addingTimeInterval(10))
        #expect(scheduler.record(for: Fixture.key(id)) == nil)
    }

    @Test(arguments: [Alarm.State.scheduled, .countdown, .paused, .alerting])
    func cancelDeletesInEveryState(_ state: Alarm.State) throws {
        var scheduler = Fixture.scheduler()
        let id = try AlarmLifeTests.alarm(in: state, scheduler: &scheduler, now: sunday)
        _ = try scheduler.act(.cancel, id, now: sunday)
        #expect(scheduler.record(for: Fixture.key(id)) == nil)
        #expect(scheduler.nextDeadline == nil)
    }

    /// Every action in every state: allowed ones change the state as ALARMKIT.md says; refused ones
    /// throw `invalidTransition` and change nothing at all.
    @Test(arguments: [Alarm.State.scheduled, .countdown, .paused, .alerting], AlarmAction.allCases)
    func everyCallThatDoesNotFitTheStateIsRefusedAndChangesNothing(_ state: Alarm.State, _ action: AlarmAction) throws {
        let allowed: [Alarm.State: Set<AlarmAction>] = [
            .scheduled: [.cancel],
            .countdown: [.cancel, .stop, .pause],
            .paused: [.cancel, .stop, .resume],
            .alerting: [.cancel, .stop, .countdown],
        ]
        var scheduler = Fixture.scheduler()
        let id = try AlarmLifeTests.alarm(in: state, scheduler: &scheduler, now: sunday)
        let before = scheduler.snapshot
        if allowed[state]!.contains(action) {
            _ = try scheduler.act(AlarmCommand(action), id, now: sunday)
            #expect(scheduler.snapshot != before)
        } else {
            #expect(throws: AlarmOperationError.invalidTransition(id, action: action, from: state)) {
                try scheduler.act(AlarmCommand(action), id, now: sunday)
            }
            #expect(scheduler.snapshot == before)
        }
    }

    @Test(arguments: AlarmAction.allCases)
    func anotherClientsAlarmIsNotFound(_ action: AlarmAction) throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.timer(300), now: sunday)
        #expect(throws: AlarmOperationError.notFound(id)) {
            try scheduler.perform(AlarmCommand(action), id: id, owner: Fixture.stranger, now: sunday)
        }
        #expect(scheduler.alarms(of: Fixture.stranger).isEmpty)
        #expect(scheduler.alarms(of: Fixture.owner).map(\.id) == [id])
    }

    /// An alarm of the fixture owner brought into `state` at `now` (a timer, or a one-shot alarm).
    static func alarm(in state: Alarm.State, scheduler: inout AlarmScheduler, now: Date) throws -> Alarm.ID {
        switch state {
        case .scheduled:
            return try scheduler.add(Fixture.fixed(now.addingTimeInterval(3600), postAlert: 60), now: now)
        case .countdown:
            return try scheduler.add(Fixture.timer(300), now: now)
        case .paused:
            let id = try scheduler.add(Fixture.timer(300), now: now)
            _ = try scheduler.act(.pause, id, now: now)
            return id
        case .alerting:
            return try scheduler.add(Fixture.fixed(now, postAlert: 60), now: now)
        }
    }
}
