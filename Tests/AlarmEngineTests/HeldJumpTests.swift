import AlarmKitCore
import AlarmModel
import AlarmSimulator
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Logging
import Testing

@testable import AlarmEngine

/// A forward clock jump that nothing confirms loses nothing: what it passed over is held, rings
/// on its real time if the clock comes back, and is missed only once NTP confirms the new time.
@Suite(.timeLimit(.minutes(5))) struct HeldJumpTests {
    let monday6 = Fixture.at("2026-11-23T06:00:00+01:00")

    struct Rig {
        let clock: ManualWallClock
        let machine: TimeSourceRuntimeTests.Machine
        let runtime: AlarmRuntime
        let directory: TemporaryDirectory
    }

    /// An engine on a machine whose time was restored from a clock file an hour before `start`.
    func rig(synchronized: Bool = false, at start: Date? = nil) throws -> Rig {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: start ?? monday6)
        let machine = TimeSourceRuntimeTests.Machine(clock: clock, saved: clock.now.addingTimeInterval(-3600))
        machine.synchronized.store(synchronized, ordering: .relaxed)
        var configuration = AlarmRuntime.Configuration(clockTrust: .always, storeDirectory: directory.path)
        configuration.clockReadings = { machine.readings() }
        let runtime = try AlarmRuntime(
            configuration: configuration, clock: clock, timeZones: ManualTimeZoneProvider(Fixture.berlin),
            authorizer: FixedAuthorization(.authorized), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        return Rig(clock: clock, machine: machine, runtime: runtime, directory: directory)
    }

    /// Moves the clock to `instant` as time passing (the monotonic clock too) and lets the engine look.
    func pass(to instant: Date, _ rig: Rig) async {
        rig.clock.advance(to: instant)
        await rig.runtime.catchUpWithClock()
    }

    /// Sets the wall clock to `instant` (a jump) and lets the engine look.
    func set(to instant: Date, _ rig: Rig) async {
        rig.clock.setWallClock(to: instant)
        await rig.runtime.catchUpWithClock()
    }

    func state(_ id: Alarm.ID, _ rig: Rig) async -> Alarm.State? {
        await rig.runtime.alarms(for: Fixture.owner).first { $0.id == id }?.state
    }

    @Test func aClockSetTwoDaysAheadForAMinuteAndPutRightLosesNothing() async throws {
        let rig = try rig()
        let daily = Alarm.ID(), once = Alarm.ID(), fixed = Alarm.ID()
        _ = try await rig.runtime.schedule(id: daily, definition: Fixture.alarm(7, 0, weekly: Fixture.everyDay), client: Fixture.owner)
        _ = try await rig.runtime.schedule(id: once, definition: Fixture.alarm(6, 45), client: Fixture.owner)
        _ = try await rig.runtime.schedule(id: fixed, definition: Fixture.fixed(monday6.addingTimeInterval(1800)), client: Fixture.owner)

        await set(to: monday6.addingTimeInterval(2 * 86_400), rig)
        #expect(await rig.runtime.missedAlarms.isEmpty, "nothing is missed on the clock's word alone")
        #expect(await rig.runtime.alarms(for: Fixture.owner).count == 3, "one-time alarms are held, not deleted")

        // Put right a minute later: everything rings on its real time, today and tomorrow.
        await set(to: monday6.addingTimeInterval(60), rig)
        await pass(to: monday6.addingTimeInterval(1800), rig)
        #expect(await state(fixed, rig) == .alerting)
        try await rig.runtime.perform(.stop, id: fixed, client: Fixture.owner)
        await pass(to: Fixture.at("2026-11-23T06:45:00+01:00"), rig)
        #expect(await state(once, rig) == .alerting)
        try await rig.runtime.perform(.stop, id: once, client: Fixture.owner)
        await pass(to: Fixture.at("2026-11-23T07:00:00+01:00"), rig)
        #expect(await state(daily, rig) == .alerting)
        try await rig.runtime.perform(.stop, id: daily, client: Fixture.owner)
        await pass(to: Fixture.at("2026-11-24T07:00:00+01:00"), rig)
        #expect(await state(daily, rig) == .alerting, "tomorrow's rings too")
        #expect(await rig.runtime.missedAlarms.isEmpty)
    }

    @Test(arguments: ["2099-01-01T06:00:00+01:00", "2106-03-01T06:00:00+01:00", "2096-11-23T06:00:00+01:00"])
    func aJumpYearsAheadAndBackLeavesEveryAlarmOnItsRealTime(_ far: String) async throws {
        let rig = try rig()
        let daily = Alarm.ID()
        _ = try await rig.runtime.schedule(id: daily, definition: Fixture.alarm(7, 0, weekly: Fixture.everyDay), client: Fixture.owner)
        await set(to: Fixture.at(far), rig)
        await set(to: monday6.addingTimeInterval(30), rig)
        await pass(to: Fixture.at("2026-11-23T07:00:00+01:00"), rig)
        #expect(await state(daily, rig) == .alerting)
        #expect(await rig.runtime.missedAlarms.isEmpty)
    }

    @Test func ntpConfirmingTheJumpMissesWhatWasHeldAndTheDailyAlarmRingsOnItsNextDay() async throws {
        let rig = try rig()
        let daily = Alarm.ID(), once = Alarm.ID()
        _ = try await rig.runtime.schedule(id: daily, definition: Fixture.alarm(7, 0, weekly: Fixture.everyDay), client: Fixture.owner)
        _ = try await rig.runtime.schedule(id: once, definition: Fixture.alarm(6, 45), client: Fixture.owner)
        let wednesday6 = monday6.addingTimeInterval(2 * 86_400)
        await set(to: wednesday6, rig)
        #expect(await rig.runtime.missedAlarms.isEmpty)

        // NTP answers: the jump was right after all.
        rig.machine.synchronized.store(true, ordering: .relaxed)
        await pass(to: wednesday6.addingTimeInterval(60), rig)
        let missed = await rig.runtime.missedAlarms
        #expect(Set(missed.map(\.alarmID)) == [daily, once])
        #expect(missed.allSatisfy { $0.reason == .tooLate })
        #expect(await state(once, rig) == nil, "an alarm that rings once is gone once missed")
        await pass(to: Fixture.at("2026-11-25T07:00:00+01:00"), rig)
        #expect(await state(daily, rig) == .alerting)
    }

    @Test func aJumpNTPConfirmsAsItHappensIsTheJumpPolicyAsEver() async throws {
        let rig = try rig(synchronized: true)
        let daily = Alarm.ID(), recent = Alarm.ID()
        _ = try await rig.runtime.schedule(id: daily, definition: Fixture.alarm(7, 0, weekly: Fixture.everyDay), client: Fixture.owner)
        _ = try await rig.runtime.schedule(id: recent, definition: Fixture.alarm(8, 50), client: Fixture.owner)
        // A restored clock 3 h behind, put right by NTP: 07:00 is 2 h late (missed), 08:50 is within the grace.
        await pass(to: monday6.addingTimeInterval(1), rig)
        await set(to: Fixture.at("2026-11-23T09:00:00+01:00"), rig)
        #expect(await rig.runtime.missedAlarms.map(\.alarmID) == [daily])
        #expect(await state(recent, rig) == .alerting, "passed within the grace: rings at once")
    }

    @Test func withoutReadingsOfTheMachineEveryJumpIsBelievedAsBefore() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: monday6)
        let runtime = try AlarmRuntime(
            configuration: .init(clockTrust: .always, storeDirectory: directory.path), clock: clock,
            timeZones: ManualTimeZoneProvider(Fixture.berlin), authorizer: FixedAuthorization(.authorized),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let once = Alarm.ID()
        _ = try await runtime.schedule(id: once, definition: Fixture.alarm(6, 45), client: Fixture.owner)
        clock.setWallClock(to: monday6.addingTimeInterval(2 * 86_400))
        await runtime.catchUpWithClock()
        #expect(await runtime.missedAlarms.map(\.alarmID) == [once])
    }
}
