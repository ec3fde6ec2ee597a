import AlarmTestKit
import FoundationEssentials
import Glibc
import LinuxSupport
import Synchronization
import Testing

@testable import AlarmTime

/// The Linux backends of the clock and the zone, on the real kernel. None of these waits for
/// time to pass: each wait ends on an event the test causes.
@Suite(.timeLimit(.minutes(5))) struct SystemClockTests {
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
        #expect(try await SystemWallClock.wait(for: armed) == .clockChanged)
    }

    /// A clock set nobody has read yet (the timer's thread is held) makes the kernel arm an
    /// earlier deadline and still fail with ECANCELED, taking the set from the read: the sleep
    /// is armed all the same, and every sleep, the new one too, ends with the clock set.
    @Test(.enabled(if: getenv("ALARMD_CLOCK_SET_TESTS") != nil))
    func aClockSetReportedWhileArmingEndsEverySleepWithClockChanged() async throws {
        let timer = RealtimeTimer()  // not the shared one: its thread is stopped below
        let hang = try await TimerThreadHang(timer)
        let now = Date().timeIntervalSince1970
        let later = try timer.arm(until: now + 86_400)
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        #expect(clock_settime(CLOCK_REALTIME, &time) == 0, "clock_settime: errno \(errno)")
        let sooner = try timer.arm(until: now + 3_600)
        hang.release()
        #expect(try await later.wait() == .clockSet)
        #expect(try await sooner.wait() == .clockSet)
    }

    @Test func anArmedTimerForThePastReportsItsDeadline() async throws {
        let armed = try SystemWallClock().arm(until: Date().addingTimeInterval(-1))
        #expect(try await SystemWallClock.wait(for: armed) == .deadlineReached)
    }

    /// Sleeps share one timer: a later sleep armed first does not hold up an earlier one, and
    /// ending the earlier one leaves the later one waiting.
    @Test func sleepsOnOneTimerEndInDeadlineOrder() async throws {
        let clock = SystemWallClock()
        let late = try clock.arm(until: Date().addingTimeInterval(86_400))
        let lateSleeper = Task { try await SystemWallClock.wait(for: late) }
        let soon = try clock.arm(until: Date().addingTimeInterval(0.05))
        #expect(try await SystemWallClock.wait(for: soon) == .deadlineReached)
        lateSleeper.cancel()
        await #expect(throws: CancellationError.self) { try await lateSleeper.value }
    }

    /// A sleep for a delay ends only through the timer's thread, however short the delay: what
    /// the watchdog's check relies on to prove that thread delivers. A deadline already past ends
    /// at once on the caller's thread instead.
    @Test func aSleepForADelayWaitsForTheTimersThread() async throws {
        let timer = RealtimeTimer()  // not the shared one: its thread is stopped below
        let hang = try await TimerThreadHang(timer)
        #expect(hang.threadName == "alarmd-timer")
        #expect(try await timer.arm(until: 0).wait() == .deadline)

        let ended = Mutex(false)
        let (ends, ending) = AsyncStream.makeStream(of: Void.self)
        let delayed = try timer.arm(after: 0)
        delayed.onEnd { _ in  // runs here and now if the sleep has ended
            ended.withLock { $0 = true }
            ending.yield()
        }
        #expect(!ended.withLock { $0 })
        let sleeper = Task { try await SystemWallClock(timer: timer).sleep(for: .zero) }
        hang.release()
        var iterator = ends.makeAsyncIterator()
        await iterator.next()
        #expect(try await sleeper.value == .deadlineReached)
    }

    /// No delay is too long or makes no sense: the longest waits until 2200 (the latest the
    /// timer arms), a NaN or a negative one for no time.
    @Test func aSleepForAnyDelayCanBeArmed() async throws {
        let timer = RealtimeTimer()
        for delay in [Duration.seconds(Int64.max).timeInterval, .infinity] {
            let longest = try timer.arm(after: delay)
            longest.cancel()
            await #expect(throws: CancellationError.self) { try await longest.wait() }
        }
        #expect(try await timer.arm(after: .nan).wait() == .deadline)
        #expect(try await timer.arm(after: -1).wait() == .deadline)
    }
}

@Suite(.timeLimit(.minutes(5))) struct SystemTimeZoneProviderTests {
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

/// ``LocaltimeWatch`` on a temporary directory standing in for `/etc`, its events read without
/// blocking: the kernel queues them before `rename` returns, so nothing here waits.
@Suite(.timeLimit(.minutes(5))) struct LocaltimeWatchTests {
    let etc: TemporaryDirectory
    var link: String { etc.path + "/localtime" }

    init() throws {
        etc = try TemporaryDirectory()
        #expect(symlink("/usr/share/zoneinfo/Europe/Berlin", etc.path + "/localtime") == 0)
    }

    /// What `timedatectl set-timezone` does: a new symlink renamed over the old one.
    func setZone(_ target: String) {
        #expect(symlink(target, link + ".new") == 0)
        #expect(rename(link + ".new", link) == 0)
    }

    @Test func otherFilesInTheDirectoryDoNotWakeIt() throws {
        let watch = try #require(LocaltimeWatch(localtimePath: link))
        let other = open(etc.path + "/resolv.conf", O_CREAT | O_WRONLY, 0o644)
        #expect(write(other, "nameserver 192.0.2.1\n", 21) == 21)
        close(other)
        #expect(rename(etc.path + "/resolv.conf", etc.path + "/hosts") == 0)
        #expect(symlink("/usr/share/zoneinfo/Asia/Tokyo", link + ".new") == 0)
        #expect(!watch.inotify.hasEvents)
    }

    @Test func replacingTheLinkIsNoticedEveryTime() throws {
        let watch = try #require(LocaltimeWatch(localtimePath: link))
        setZone("/usr/share/zoneinfo/Asia/Tokyo")
        #expect(watch.handleEvents())
        // Re-armed on the new link: the next replacement is noticed too.
        setZone("/usr/share/zoneinfo/America/New_York")
        #expect(watch.inotify.hasEvents)
        #expect(watch.handleEvents())
        #expect(!watch.handleEvents())  // what is left is the old zone file's watch, dropped
    }

    @Test func aZoneFileReplacedUnderTheLinkIsNoticed() throws {
        let zoneinfo = try TemporaryDirectory()
        let zone = zoneinfo.path + "/Berlin"
        try copy("/usr/share/zoneinfo/Europe/Berlin", to: zone)
        setZone(zone)
        let watch = try #require(LocaltimeWatch(localtimePath: link))
        // A tzdata upgrade: the new file renamed over the old one.
        try copy("/usr/share/zoneinfo/Europe/Paris", to: zone + ".dpkg-new")
        #expect(rename(zone + ".dpkg-new", zone) == 0)
        #expect(watch.handleEvents())
    }

    @Test func aLinkMadeWhereThereWasNoneIsNoticed() throws {
        #expect(unlink(link) == 0)
        let watch = try #require(LocaltimeWatch(localtimePath: link))
        #expect(symlink("/usr/share/zoneinfo/Asia/Tokyo", etc.path + "/unrelated") == 0)
        #expect(!watch.handleEvents())
        setZone("/usr/share/zoneinfo/Asia/Tokyo")
        #expect(watch.handleEvents())
        #expect(!watch.handleEvents())  // the directory's watch, dropped
        // Now on the link itself, not the directory.
        #expect(symlink("/usr/share/zoneinfo/Asia/Tokyo", etc.path + "/another") == 0)
        #expect(!watch.inotify.hasEvents)
    }

    private func copy(_ source: String, to destination: String) throws {
        let bytes = try SystemFile.read(source).get()
        let out = open(destination, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        #expect(out >= 0)
        _ = bytes.withUnsafeBytes { write(out, $0.baseAddress, $0.count) }
        close(out)
    }
}

extension Inotify {
    /// Whether events are waiting, without blocking.
    var hasEvents: Bool {
        var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&waiting, 1, 0) > 0 && waiting.revents & Int16(POLLIN) != 0
    }
}
