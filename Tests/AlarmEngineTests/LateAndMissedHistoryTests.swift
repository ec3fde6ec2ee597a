import AlarmKitCore
import AlarmModel
import AlarmSimulator
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Logging
import Testing

@testable import AlarmEngine

/// A restored clock put right by NTP: what it passed within the grace rings at once, what it
/// passed before is missed, and the history says why, as it does for alarms due while alarmd was
/// not running.
@Suite(.timeLimit(.minutes(5))) struct LateAndMissedHistoryTests {
    let jumps = HeldJumpTests()
    /// Monday 05:40 in fact; the clock, restored from the file saved at the cut, reads 03:40.
    let restoredAtBoot = Fixture.at("2026-11-23T03:40:00+01:00")
    let ninetyMinutesLaterInFact = Fixture.at("2026-11-23T07:10:00+01:00")

    func history(_ id: Alarm.ID, _ rig: HeldJumpTests.Rig) async -> [HistoryEntry] {
        await rig.runtime.history(for: Fixture.owner).filter { $0.alarmID == id }
    }

    @Test(arguments: [true, false])
    func ntpArriving90MinutesLateRingsWhatPassedWithinTheGraceOnceAndMissesTheRestWithAReason(
        confirmedAtTheStep: Bool
    ) async throws {
        let rig = try jumps.rig(at: restoredAtBoot)
        let seven = Alarm.ID(), quarterPastSix = Alarm.ID()
        _ = try await rig.runtime.schedule(id: seven, definition: Fixture.alarm(7, 0), client: Fixture.owner)
        _ = try await rig.runtime.schedule(id: quarterPastSix, definition: Fixture.alarm(6, 15), client: Fixture.owner)
        #expect(await rig.runtime.currentTimeSource()?.source == .restored)
        await jumps.pass(to: restoredAtBoot.addingTimeInterval(90 * 60), rig)

        // NTP steps the clock 2 h ahead, saying at once that it is synchronised, or only on the
        // engine's next look (the step first, then the adjtimex that clears STA_UNSYNC).
        rig.machine.synchronized.store(confirmedAtTheStep, ordering: .relaxed)
        await jumps.set(to: ninetyMinutesLaterInFact, rig)
        #expect(await jumps.state(seven, rig) == .alerting, "10 min late, within the grace: rings at once")
        if !confirmedAtTheStep {
            #expect(await rig.runtime.missedAlarms.isEmpty, "held until the time is confirmed")
            rig.machine.synchronized.store(true, ordering: .relaxed)
            await jumps.pass(to: ninetyMinutesLaterInFact.addingTimeInterval(60), rig)
        }
        #expect(await rig.runtime.currentTimeSource()?.source == .ntp)
        #expect(await rig.runtime.missedAlarms.map(\.alarmID) == [quarterPastSix])
        #expect(await jumps.state(quarterPastSix, rig) == nil, "a one-time alarm is gone once missed")

        let rang = await history(seven, rig)
        #expect(rang.map(\.kind) == [.rang])
        #expect(rang.first?.lateBy == 600)
        #expect(rang.first?.reason == .clockSet)
        #expect(rang.first?.explanation == "10 min late: the clock was set")
        let missed = await history(quarterPastSix, rig)
        #expect(missed.map(\.kind) == [.missed])
        #expect(missed.first?.date == Fixture.at("2026-11-23T06:15:00+01:00"))
        #expect(missed.first?.reason == .clockSet)
        #expect(missed.first?.explanation == "the clock was set past its time")

        // Rung once: stopped, it does not ring again.
        try await rig.runtime.perform(.stop, id: seven, client: Fixture.owner)
        await jumps.pass(to: ninetyMinutesLaterInFact.addingTimeInterval(3600), rig)
        #expect(await jumps.state(seven, rig) == nil)
        #expect(await history(seven, rig).map(\.kind) == [.rang, .stopped])
    }

    @Test func aSoundThatCouldNotPlayIsInTheHistoryByName() async throws {
        let rig = try jumps.rig()
        let id = Alarm.ID()
        _ = try await rig.runtime.schedule(id: id, definition: Fixture.alarm(6, 30), client: Fixture.owner)
        await jumps.pass(to: Fixture.at("2026-11-23T06:30:00+01:00"), rig)
        await rig.runtime.recordSoundFallback(for: AlarmKey(owner: Fixture.owner, id: id), sound: "chime.mp3")
        let entries = await history(id, rig)
        #expect(entries.map(\.kind) == [.rang, .soundFailed])
        #expect(entries.last?.detail == "chime.mp3")
        #expect(entries.last?.explanation == "chime.mp3 could not play: the built-in tone rang")
    }

    @Test func anAlarmOnTimeHasNothingToExplain() async throws {
        let rig = try jumps.rig()
        let id = Alarm.ID()
        _ = try await rig.runtime.schedule(id: id, definition: Fixture.alarm(6, 30), client: Fixture.owner)
        await jumps.pass(to: Fixture.at("2026-11-23T06:30:00+01:00"), rig)
        let entries = await history(id, rig)
        #expect(entries.map(\.kind) == [.rang])
        #expect(entries.first?.lateBy == nil && entries.first?.reason == nil && entries.first?.explanation == nil)
    }

    @Test func whatWasDueWhileAlarmdWasNotRunningIsInTheHistoryWithTheReason() async throws {
        let directory = try TemporaryDirectory()
        let start = Fixture.at("2026-11-23T05:00:00+01:00")
        let clock = ManualWallClock(now: start)
        func engine() throws -> AlarmRuntime {
            try AlarmRuntime(
                configuration: .init(clockTrust: .always, storeDirectory: directory.path), clock: clock,
                timeZones: ManualTimeZoneProvider(Fixture.berlin), authorizer: FixedAuthorization(.authorized),
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        }
        let early = Alarm.ID(), recent = Alarm.ID()
        do {
            let before = try engine()
            _ = try await before.schedule(id: early, definition: Fixture.alarm(5, 30), client: Fixture.owner)
            _ = try await before.schedule(id: recent, definition: Fixture.alarm(6, 40), client: Fixture.owner)
        }
        // Off from 05:00 to 06:45: 05:30 is too late to ring, 06:40 rings 5 minutes late.
        clock.setWallClock(to: Fixture.at("2026-11-23T06:45:00+01:00"))
        let after = try engine()
        let running = Task { await after.run() }
        defer { running.cancel() }
        // The timer sleeps once the start is recorded: until 06:40's alert is auto-silenced.
        await clock.waitForSleepers()
        let entries = await after.history(for: Fixture.owner)
        #expect(entries.map(\.kind) == [.missed, .rang])
        #expect(entries.map(\.alarmID) == [early, recent])
        #expect(entries.allSatisfy { $0.reason == .notRunning })
        #expect(entries.last?.explanation == "5 min late: the clock was off or restarting")
    }
}
