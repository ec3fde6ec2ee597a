import AlarmKitCore
import AlarmModel
import AlarmSimulator
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import InMemoryLogging
import Logging
import Synchronization
import Testing

@testable import AlarmEngine

/// The engine knows where the clock's time came from: it reads the machine at every wake, looks
/// again once a minute while nothing has confirmed the time, publishes a change to the device
/// and journals it once.
@Suite(.timeLimit(.minutes(5))) struct TimeSourceRuntimeTests {
    let start = Fixture.at("2026-11-28T06:00:00+01:00")

    /// A machine whose NTP state the test sets; booted an hour before `start`.
    final class Machine: Sendable {
        let synchronized = Atomic(false)
        let clock: ManualWallClock
        let saved: Date

        init(clock: ManualWallClock, saved: Date) {
            self.clock = clock
            self.saved = saved
        }

        func readings() -> ClockReadings {
            ClockReadings(
                now: clock.now, bootedAt: clock.now.addingTimeInterval(-3600), ntpSynchronized: synchronized.load(ordering: .relaxed),
                rtc: nil, savedClockAt: saved)
        }
    }

    @Test func aRestoredTimeIsPublishedThenNTPsConfirmationOnceItSynchronises() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: start)
        let machine = Machine(clock: clock, saved: start.addingTimeInterval(-7200))
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "alarmd.engine", factory: { _ in handler })
        logger.logLevel = .info
        var configuration = AlarmRuntime.Configuration(clockTrust: .always, storeDirectory: directory.path)
        configuration.clockReadings = { machine.readings() }
        let runtime = try AlarmRuntime(
            configuration: configuration, clock: clock, timeZones: ManualTimeZoneProvider(Fixture.berlin),
            authorizer: FixedAuthorization(.authorized), logger: logger)
        var snapshots = runtime.deviceSnapshots().makeAsyncIterator()
        let engine = Task { await runtime.run() }
        defer { engine.cancel() }

        while let snapshot = await snapshots.next(), snapshot.timeSource != .restored {}
        #expect(await runtime.timeSource == TimeSourceStatus(source: .restored, confirmedAt: machine.saved))
        // Not confirmed: the engine looks again in a minute, though no alarm is due.
        let recheck = start.addingTimeInterval(60)
        await clock.waitForSleeper(until: recheck)

        // NTP synchronises by slewing: no jump, only the next look notices it.
        machine.synchronized.store(true, ordering: .relaxed)
        clock.advance(to: recheck)
        while let snapshot = await snapshots.next(), snapshot.timeSource != .ntp {}
        #expect(await runtime.timeSource == TimeSourceStatus(source: .ntp, confirmedAt: recheck))

        let lines = handler.entries.filter { $0.metadata["clock.source"] != nil }
        #expect(lines.map { "\($0.message)" } == [
            "Clock time not confirmed: restored from the time saved at the last shutdown; alarms ring at the clock's best guess",
            "Clock time confirmed",
        ])
        #expect(lines.map(\.level) == [.warning, .notice])
        #expect(lines.last?.metadata["clock.source"] == "ntp")

        // Confirmed and nothing scheduled: no more minute looks.
        await clock.waitForSleeper(until: SystemWallClock.latestArmableDeadline)
    }

    @Test func withoutReadingsNoSourceIsReportedAndNothingIsPolled() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: start)
        let runtime = try AlarmRuntime(
            configuration: .init(clockTrust: .always, storeDirectory: directory.path), clock: clock,
            timeZones: ManualTimeZoneProvider(Fixture.berlin), authorizer: FixedAuthorization(.authorized),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let engine = Task { await runtime.run() }
        defer { engine.cancel() }
        await clock.waitForSleeper(until: SystemWallClock.latestArmableDeadline)
        #expect(await runtime.timeSource == nil)
        #expect(await runtime.deviceSnapshot().timeSource == nil)
    }
}
