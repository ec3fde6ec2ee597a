import AlarmSimulator
import AlarmTime
import FoundationEssentials
import Testing

/// The manual clock every engine and appliance test stands on.
@Suite(.timeLimit(.minutes(5))) struct ManualWallClockTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func advancingWakesExactlyTheSleepersThatAreDue() async throws {
        let clock = ManualWallClock(now: start)
        let soon = Task { try await clock.sleep(until: start.addingTimeInterval(60)) }
        let later = Task { try await clock.sleep(until: start.addingTimeInterval(3600)) }
        await clock.waitForSleepers(2)

        clock.advance(by: 60)
        #expect(try await soon.value == .deadlineReached)
        #expect(clock.sleeperCount == 1)
        #expect(clock.earliestSleeperDeadline == start.addingTimeInterval(3600))

        clock.advance(to: start.addingTimeInterval(7200))
        #expect(try await later.value == .deadlineReached)
        #expect(clock.now == start.addingTimeInterval(7200))
    }

    @Test func aDeadlineAlreadyPastReturnsAtOnce() async throws {
        let clock = ManualWallClock(now: start)
        #expect(try await clock.sleep(until: start) == .deadlineReached)
        #expect(clock.sleeperCount == 0)
    }

    @Test func settingTheWallClockWakesEverySleeperAndLeavesTheMonotonicClock() async throws {
        let clock = ManualWallClock(now: start)
        let monotonic = clock.monotonicNow
        let sleeper = Task { try await clock.sleep(until: start.addingTimeInterval(86_400)) }
        await clock.waitForSleeper(until: start.addingTimeInterval(86_400))
        clock.setWallClock(to: start.addingTimeInterval(-3600))
        #expect(try await sleeper.value == .clockChanged)
        #expect(clock.now == start.addingTimeInterval(-3600))
        #expect(clock.monotonicNow == monotonic)

        clock.advance(by: 90)
        #expect(clock.monotonicNow == monotonic + .seconds(90))
    }

    @Test func cancellingASleepThrowsAndForgetsTheSleeper() async throws {
        let clock = ManualWallClock(now: start)
        let sleeper = Task { try await clock.sleep(until: start.addingTimeInterval(60)) }
        await clock.waitForSleepers()
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }
}

@Suite(.timeLimit(.minutes(5))) struct ManualTimeZoneProviderTests {
    @Test func everySubscriberHearsOfAChange() async throws {
        let zones = ManualTimeZoneProvider(.utc)
        var first = zones.changes().makeAsyncIterator()
        var second = zones.changes().makeAsyncIterator()
        let tokyo = try TimeZoneDatabase().rules(named: "Asia/Tokyo")
        zones.set(tokyo)
        #expect(await first.next() != nil)
        #expect(await second.next() != nil)
        #expect(try zones.currentZone() == tokyo)
    }
}
