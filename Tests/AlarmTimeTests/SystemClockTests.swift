import AlarmTestKit
import FoundationEssentials
import Glibc
import Testing

@testable import AlarmTime

/// The Linux backends of the clock and the zone, on the real kernel. None of these waits for
/// time to pass: each wait ends on an event the test causes.
@Suite(.timeLimit(.minutes(1))) struct SystemClockTests {
    @Test func aDeadlineInThePastEndsTheSleepAtOnce() async throws {
        let wake = try await SystemWallClock().sleep(until: Date(timeIntervalSince1970: 0))
        #expect(wake == .deadlineReached)
    }

    @Test func cancellingASleepEndsIt() async throws {
        let clock = SystemWallClock()
        let sleeper = Task { try await clock.sleep(until: Date().addingTimeInterval(86_400)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func theMonotonicClockDoesNotGoBack() {
        let clock = SystemWallClock()
        let first = clock.monotonicNow
        #expect(clock.monotonicNow >= first)
    }

    /// Setting the wall clock (to its own value, so nothing else is disturbed) must end a sleep at
    /// once with `.clockChanged`: that is how jumps are noticed without polling. Needs root and a
    /// kernel that lets this process set the clock, so it runs only with ALARMD_CLOCK_SET_TESTS=1.
    @Test(.enabled(if: getenv("ALARMD_CLOCK_SET_TESTS") != nil))
    func settingTheClockEndsASleepWithClockChanged() async throws {
        let armed = try SystemWallClock().arm(until: Date().addingTimeInterval(86_400))
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        #expect(clock_settime(CLOCK_REALTIME, &now) == 0, "clock_settime: errno \(errno)")
        #expect(try await armed.wait() == .clockChanged)
    }

    @Test func anArmedTimerForThePastReportsItsDeadline() async throws {
        let armed = try SystemWallClock().arm(until: Date().addingTimeInterval(-1))
        #expect(try await armed.wait() == .deadlineReached)
    }
}

@Suite(.timeLimit(.minutes(1))) struct SystemTimeZoneProviderTests {
    @Test func replacingLocaltimeIsNoticedAndTheNewZoneRead() async throws {
        let directory = try TemporaryDirectory()
        let link = directory.path + "/localtime"
        #expect(symlink("/usr/share/zoneinfo/Europe/Berlin", link) == 0)
        let provider = SystemTimeZoneProvider(environment: [:], localtimePath: link)
        #expect(try provider.currentZone().identifier == "Europe/Berlin")

        var changes = provider.changes().makeAsyncIterator()
        // What timedatectl does: a new symlink renamed over the old one.
        #expect(symlink("/usr/share/zoneinfo/Asia/Tokyo", link + ".new") == 0)
        #expect(rename(link + ".new", link) == 0)
        #expect(await changes.next() != nil)
        #expect(try provider.currentZone().identifier == "Asia/Tokyo")
    }

    @Test func theZoneNamedByTZWins() throws {
        let provider = SystemTimeZoneProvider(environment: ["TZ": ":America/St_Johns"], localtimePath: "/nonexistent")
        #expect(try provider.currentZone().identifier == "America/St_Johns")
    }
}
