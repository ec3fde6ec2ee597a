import AlarmSimulator
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Glibc
import InMemoryLogging
import Logging
import Synchronization
import Testing

@testable import AlarmEngine

/// The engine's part of the daemon's watchdog check, and what it must never be blocked by.
@Suite(.timeLimit(.minutes(5))) struct HealthProbeTests {
    let sixFiftyNine = Fixture.at("2026-11-23T06:59:00+01:00")

    /// The probe sleeps on the engine's own clock, beside the engine's timer, and answers only
    /// once that clock delivers its sleep.
    @Test func theProbeAnswersOnceTheEnginesClockDeliversItsSleep() async throws {
        let rig = try EngineRig(now: sixFiftyNine)
        try await rig.running {
            await rig.clock.waitForSleepers(1)  // the engine's timer
            let answered = Mutex(false)
            let probe = Task {
                let answer = await rig.runtime.probeTimer(after: .seconds(2))
                answered.withLock { $0 = true }
                return answer
            }
            await rig.clock.waitForSleeper(until: sixFiftyNine.addingTimeInterval(2))
            #expect(rig.clock.sleeperCount == 2)
            rig.clock.advance(by: 1)
            #expect(!answered.withLock { $0 })  // a sleeper due later is never resumed early
            rig.clock.advance(by: 1)
            #expect(await probe.value)
            #expect(rig.clock.sleeperCount == 1)  // the engine's timer sleeps on
        }
    }

    @Test func aCancelledProbeAnswersFalse() async throws {
        let rig = try EngineRig(now: sixFiftyNine)
        let probe = Task { await rig.runtime.probeTimer(after: .seconds(2)) }
        await rig.clock.waitForSleepers(1)
        probe.cancel()
        #expect(await probe.value == false)
    }

    /// `/etc/localtime` replaced by a FIFO: reading it once blocked the engine's actor for ever
    /// (a plain open of a FIFO waits for a writer). Now the read fails at once, the engine keeps
    /// the zone it had and logs why, and the probe still answers.
    @Test func aFIFOInPlaceOfLocaltimeNeitherBlocksTheEngineNorChangesItsZone() async throws {
        let directory = try TemporaryDirectory()
        let localtime = directory.path + "/localtime"
        #expect(symlink("/usr/share/zoneinfo/Europe/Berlin", localtime) == 0)
        let clock = ManualWallClock(now: sixFiftyNine)
        let handler = InMemoryLogHandler()
        let runtime = try AlarmRuntime(
            configuration: .init(clockTrust: .always, storeDirectory: directory.path + "/state"), clock: clock,
            timeZones: SystemTimeZoneProvider(environment: [:], localtimePath: localtime),
            authorizer: FixedAuthorization(.authorized), logger: Logger(label: "alarmd.engine", factory: { _ in handler }))
        #expect(await runtime.scheduler.timeZone.identifier == "Europe/Berlin")

        #expect(unlink(localtime) == 0)
        #expect(mkfifo(localtime, 0o644) == 0)
        let returned = await unlessCancelled { await runtime.timeZoneMayHaveChanged() }
        try #require(returned, "the engine blocked on the FIFO")
        #expect(await runtime.scheduler.timeZone.identifier == "Europe/Berlin")
        let error = try #require(handler.entries.last { $0.level == .error })
        #expect("\(error.message)" == "Time zone unreadable; keeping the previous one")
        #expect(error.metadata["timezone.error"] == "cannot read time zone file \(localtime): a FIFO, not a regular file")

        let probe = Task { await runtime.probeTimer(after: .seconds(1)) }
        await clock.waitForSleepers(1)
        clock.advance(by: 1)
        #expect(await probe.value)
    }
}
