import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmSimulator
import FoundationEssentials
import LinuxSupport
import Testing

@testable import AlarmEngine

/// The engine as clients and the device see it: an ``AlarmManager`` over a running runtime, on a
/// manual clock. Every wait is on an event, never on time.
@Suite(.timeLimit(.minutes(5))) struct AlarmRuntimeTests {
    let sixFiftyNine = Fixture.at("2026-11-23T06:59:00+01:00")
    let seven = Fixture.at("2026-11-23T07:00:00+01:00")

    static func wakeUp(at hour: Int, _ minute: Int, snooze: TimeInterval? = 540)
        -> AlarmManager.AlarmConfiguration<NoAlarmMetadata>
    {
        AlarmManager.AlarmConfiguration(
            countdownDuration: snooze.map { .init(preAlert: nil, postAlert: $0) },
            schedule: .relative(.init(time: .init(hour: hour, minute: minute), repeats: .never)),
            attributes: AlarmAttributes(presentation: Fixture.presentation(), tintColor: .orange))
    }

    @Test func snoozeThroughTheManagerRingsAgainNineMinutesLater() async throws {
        let rig = try EngineRig(now: sixFiftyNine)
        try await rig.running {
            let manager = rig.manager()
            var updates = manager.alarmUpdates.makeAsyncIterator()
            #expect(await updates.nextElement() == [])

            let id = Alarm.ID()
            let alarm = try await manager.schedule(id: id, configuration: Self.wakeUp(at: 7, 0))
            #expect(alarm.state == .scheduled)
            #expect(await updates.nextElement()?.map(\.state) == [.scheduled])

            await rig.clock.waitForSleeper(until: seven)
            rig.clock.advance(to: seven)
            #expect(await updates.nextElement()?.map(\.state) == [.alerting])

            try await manager.perform(.countdown, id: id)
            #expect(await updates.nextElement()?.map(\.state) == [.countdown])
            await rig.clock.waitForSleeper(until: seven.addingTimeInterval(540))
            rig.clock.advance(by: 540)
            #expect(await updates.nextElement()?.map(\.state) == [.alerting])

            try await manager.perform(.stop, id: id)
            #expect(await updates.nextElement() == [])
        }
    }

    /// The appliance starts the sound from the device view published with an alert; the alert is
    /// saved in a job of its own after that, and is durable once the store settles.
    @Test func anAlertIsPublishedWithTheDeviceViewThenSaved() async throws {
        let rig = try EngineRig(now: sixFiftyNine)
        try await rig.running {
            var snapshots = rig.runtime.deviceSnapshots().makeAsyncIterator()
            let id = Alarm.ID()
            _ = try await rig.manager().schedule(id: id, configuration: Self.wakeUp(at: 7, 0))
            var scheduled = try #require(await snapshots.nextElement())
            while scheduled.nextAlarm?.record.id != id {  // the client's authorization comes first
                scheduled = try #require(await snapshots.nextElement())
            }

            await rig.clock.waitForSleeper(until: seven)
            rig.clock.advance(to: seven)
            let alerting = try #require(await snapshots.nextElement())
            #expect(alerting.alerting.map(\.id) == [id])
            #expect(alerting.revision > scheduled.revision)
            #expect(await rig.runtime.deviceSnapshot().revision == alerting.revision, "nothing changed since")

            await rig.runtime.settleStore()
            let stored = AlarmStore(directory: rig.directory.path, logger: EngineRig.logger).load()
            #expect(stored.state?.scheduler.alarms.first?.phase.state == .alerting)
        }
    }

    @Test func everySubscriberGetsEveryChangeAndOnlyItsOwnAlarms() async throws {
        let rig = try EngineRig(now: sixFiftyNine)
        let owner = rig.manager()
        var first = owner.alarmUpdates.makeAsyncIterator()
        var second = owner.alarmUpdates.makeAsyncIterator()
        // Each subscription is in place once its first list arrived.
        #expect(await first.nextElement() == [])
        #expect(await second.nextElement() == [])
        let a = Alarm.ID(), b = Alarm.ID()
        try await owner.schedule(id: a, configuration: Self.wakeUp(at: 8, 0))
        try await rig.manager(Fixture.stranger).schedule(id: Alarm.ID(), configuration: Self.wakeUp(at: 9, 0))
        try await owner.schedule(id: b, configuration: Self.wakeUp(at: 10, 0))
        try await owner.perform(.cancel, id: a)
        for iterator in [0, 1] {
            var lists: [[Alarm.ID]] = []
            for _ in 0..<3 {
                let list = iterator == 0 ? await first.nextElement() : await second.nextElement()
                lists.append(list?.map(\.id) ?? [])
            }
            #expect(lists == [[a], [a, b], [b]])
        }
        #expect(try owner.alarms.map(\.id) == [b])
        #expect(try rig.manager(Fixture.stranger).alarms.count == 1)
    }

    /// In the engine's own process a synchronous change waits for the engine on a plain thread,
    /// and inside a task refuses rather than block a thread the engine's actor may need.
    @Test func synchronousChangesWaitOnAThreadAndRefuseInsideATask() async throws {
        let rig = try EngineRig(now: sixFiftyNine)
        let manager = rig.manager()
        let id = Alarm.ID()
        try await manager.schedule(id: id, configuration: Self.wakeUp(at: 7, 0))
        #expect(throws: AlarmOperationError.self) { try manager.cancel(id: id) as Void }
        #expect(try manager.alarms.map(\.id) == [id], "the refused change changed nothing")
        let outcome = await DetachedThread.run { () -> String in
            do {
                try manager.cancel(id: id) as Void
                return "cancelled"
            } catch {
                return "\(error)"
            }
        }
        #expect(outcome == "cancelled")
        #expect(try manager.alarms.isEmpty)
        #expect(await rig.runtime.alarms(for: Fixture.owner).isEmpty)
    }

    @Test func aCountdownKeepsCountingInWallTimeAcrossARestart() async throws {
        let rig = try EngineRig(now: sixFiftyNine)
        let id = Alarm.ID()
        _ = try await rig.runtime.schedule(id: id, definition: Fixture.timer(600), client: Fixture.owner)
        rig.clock.advance(by: 240)  // the process is down for four minutes

        let restarted = try rig.restarted()
        guard case .countdown(let countdown)? = await restarted.presentationState(for: Fixture.key(id))?.mode else {
            Issue.record("the timer must still count down after the restart")
            return
        }
        #expect(countdown.fireDate == sixFiftyNine.addingTimeInterval(600))
        var events = restarted.events().makeAsyncIterator()
        try await rig.running(restarted) {
            await rig.clock.waitForSleeper(until: sixFiftyNine.addingTimeInterval(600))
            rig.clock.advance(to: sixFiftyNine.addingTimeInterval(600))
            #expect(await events.next() == .alertStarted(Fixture.key(id), lateBy: 0))
        }
    }

    @Test func pausedStaysPausedAndAnAlertResumesWithinAutoSilenceAcrossRestarts() async throws {
        let rig = try EngineRig(now: sixFiftyNine)
        let timer = Alarm.ID(), alarm = Alarm.ID()
        _ = try await rig.runtime.schedule(id: timer, definition: Fixture.timer(600), client: Fixture.owner)
        try await rig.runtime.perform(.pause, id: timer, client: Fixture.owner)
        _ = try await rig.runtime.schedule(id: alarm, definition: Fixture.fixed(sixFiftyNine), client: Fixture.owner)

        rig.clock.advance(by: 5 * 60)
        let afterFive = try rig.restarted()
        #expect(await afterFive.alarms(for: Fixture.owner).map(\.state) == [.paused, .alerting])

        rig.clock.advance(by: 11 * 60)
        let afterSixteen = try rig.restarted()
        #expect(await afterSixteen.alarms(for: Fixture.owner).map(\.state) == [.paused])
        #expect(await afterSixteen.missedAlarms.map(\.reason) == [.unanswered])
    }

    @Test func aClockJumpIsHandledAtOnceAndATimerKeepsItsRemainingTime() async throws {
        let rig = try EngineRig(now: sixFiftyNine)
        let id = Alarm.ID()
        var events = rig.runtime.events().makeAsyncIterator()
        try await rig.running {
            _ = try await rig.runtime.schedule(id: id, definition: Fixture.timer(600), client: Fixture.owner)
            #expect(await events.next() == .scheduled(Fixture.key(id)))
            _ = await events.next()  // countdownStarted
            await rig.clock.waitForSleeper(until: sixFiftyNine.addingTimeInterval(600))
            // NTP steps the clock an hour ahead; the monotonic clock does not move.
            rig.clock.setWallClock(to: sixFiftyNine.addingTimeInterval(3600))
            await rig.clock.waitForSleeper(until: sixFiftyNine.addingTimeInterval(4200))
            // The shifted countdown is durable: a restart now keeps it.
            guard case .countdown(let countdown)? = try await rig.restarted().presentationState(for: Fixture.key(id))?.mode else {
                Issue.record("the timer must still count down after a restart")
                return
            }
            #expect(countdown.fireDate == sixFiftyNine.addingTimeInterval(4200))
            rig.clock.advance(by: 600)
            #expect(await events.next() == .alertStarted(Fixture.key(id), lateBy: 0))
        }
    }

    @Test func aTimeZoneChangeMovesARelativeAlarmToTheNewZonesWallTime() async throws {
        let rig = try EngineRig(now: Fixture.at("2026-11-22T20:00:00+01:00"))
        try await rig.running {
            try await rig.manager().schedule(id: Alarm.ID(), configuration: Self.wakeUp(at: 7, 0))
            await rig.clock.waitForSleeper(until: seven)
            rig.zones.set(Fixture.zone("America/New_York"))
            await rig.clock.waitForSleeper(until: Fixture.at("2026-11-23T07:00:00-05:00"))
        }
    }

    @Test func nothingRingsFromAnUntrustedClockUntilItIsSet() async throws {
        let boot = Fixture.at("1970-01-01T00:00:30Z")
        let rig = try EngineRig(now: boot, clockTrust: .notBefore(ClockTrustPolicy.firmwareReleaseDate))
        try await rig.running {
            let id = Alarm.ID()
            var configuration = Self.wakeUp(at: 7, 0)
            configuration.schedule = .relative(.init(time: .init(hour: 7, minute: 0), repeats: .weekly(Fixture.everyDay)))
            try await rig.manager().schedule(id: id, configuration: configuration)
            #expect(await rig.runtime.isClockTrusted == false)
            #expect(await rig.runtime.nextDeadline == nil)
            await rig.clock.waitForSleepers()
            rig.clock.setWallClock(to: Fixture.at("2026-11-23T06:30:00+01:00"))
            await rig.clock.waitForSleeper(until: seven)
            #expect(await rig.runtime.isClockTrusted)
        }
    }

    @Test func aTimerRunningAtAPowerCutRingsOnTimeAfterABootWithoutRealTimeClock() async throws {
        let trust = ClockTrustPolicy.notBefore(ClockTrustPolicy.firmwareReleaseDate)
        let rig = try EngineRig(now: sixFiftyNine, clockTrust: trust)
        let id = Alarm.ID()
        _ = try await rig.runtime.schedule(id: id, definition: Fixture.timer(600), client: Fixture.owner)

        // Power returns two minutes later; the board's clock starts at 1970 until NTP sets it.
        let bootClock = ManualWallClock(now: Fixture.at("1970-01-01T00:00:05Z"))
        let booted = try EngineRig.makeRuntime(
            directory: rig.directory.path, clock: bootClock, zones: rig.zones, policy: .default, clockTrust: trust,
            authorizer: FixedAuthorization(.authorized))
        try await rig.running(booted) {
            await bootClock.waitForSleepers()
            #expect(await booted.isClockTrusted == false)
            bootClock.setWallClock(to: sixFiftyNine.addingTimeInterval(120))
            await bootClock.waitForSleeper(until: sixFiftyNine.addingTimeInterval(600))
            #expect(await booted.isClockTrusted)
        }
    }

    // MARK: Authorization

    @Test func theFirstScheduleOfAnUndeterminedClientAsksOnceAndTheAnswerIsDurable() async throws {
        let prompter = ScriptedPrompter(answer: .authorized)
        let rig = try EngineRig(now: sixFiftyNine, authorizer: prompter)
        let manager = rig.manager()
        var states = manager.authorizationUpdates.makeAsyncIterator()
        #expect(await states.nextElement() == .notDetermined)
        #expect(manager.authorizationState == .notDetermined)

        try await manager.schedule(id: Alarm.ID(), configuration: Self.wakeUp(at: 7, 0))
        try await manager.schedule(id: Alarm.ID(), configuration: Self.wakeUp(at: 8, 0))
        #expect(prompter.timesAsked == 1)
        #expect(await states.nextElement() == .authorized)
        #expect(try await rig.restarted().authorizationState(for: Fixture.owner) == .authorized)
    }

    @Test func aDeniedClientCannotSchedule() async throws {
        let prompter = ScriptedPrompter(answer: .denied)
        let rig = try EngineRig(now: sixFiftyNine, authorizer: prompter)
        let manager = rig.manager()
        await #expect(throws: AlarmOperationError.notAuthorized(.denied)) {
            try await manager.schedule(id: Alarm.ID(), configuration: Self.wakeUp(at: 7, 0))
        }
        #expect(try await manager.requestAuthorization() == .denied)
        #expect(prompter.timesAsked == 1)
        #expect(try manager.alarms.isEmpty)
    }

    @Test func noAnswerLeavesTheClientUndeterminedAndAsksAgainNextTime() async throws {
        let prompter = ScriptedPrompter(answer: .notDetermined)
        let rig = try EngineRig(now: sixFiftyNine, authorizer: prompter)
        let manager = rig.manager()
        await #expect(throws: AlarmOperationError.notAuthorized(.notDetermined)) {
            try await manager.schedule(id: Alarm.ID(), configuration: Self.wakeUp(at: 7, 0))
        }
        #expect(try await manager.requestAuthorization() == .notDetermined)
        #expect(prompter.timesAsked == 2)
    }

    @Test func theDeviceButtonsActOnAnyClientsAlarm() async throws {
        let rig = try EngineRig(now: sixFiftyNine)
        let id = Alarm.ID()
        _ = try await rig.runtime.schedule(id: id, definition: Fixture.fixed(sixFiftyNine), client: Fixture.stranger)
        let key = AlarmKey(owner: Fixture.stranger, id: id)
        #expect(await rig.runtime.alertingOrder == [key])
        try await rig.runtime.press(.stop, on: key)
        #expect(await rig.runtime.alarms(for: Fixture.stranger).isEmpty)
    }
}
