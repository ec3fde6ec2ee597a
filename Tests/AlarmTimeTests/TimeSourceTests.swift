import AlarmModel
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Glibc
import Testing

@Suite struct TimeSourceTrackerTests {
    static let release = Date(timeIntervalSince1970: 1_793_491_200)  // 2026-11-01
    static let boot = release.addingTimeInterval(30 * 86_400)

    func readings(
        at offset: TimeInterval = 60, synchronized: Bool = false, rtc: RTCReading? = nil, saved: Date? = nil
    ) -> ClockReadings {
        ClockReadings(now: Self.boot.addingTimeInterval(offset), bootedAt: Self.boot, ntpSynchronized: synchronized, rtc: rtc, savedClockAt: saved)
    }

    @Test func aClockBeforeTheReleaseIsUnset() {
        var tracker = TimeSourceTracker(releaseDate: Self.release)
        let early = ClockReadings(now: Date(timeIntervalSince1970: 0), bootedAt: Date(timeIntervalSince1970: -5), ntpSynchronized: false, rtc: nil, savedClockAt: nil)
        #expect(tracker.update(early).status == TimeSourceStatus(source: .unset, confirmedAt: nil))
    }

    @Test func onlyASavedClockFileIsRestoredTimeConfirmedWhenItWasSaved() {
        var tracker = TimeSourceTracker(releaseDate: Self.release)
        let saved = Self.boot.addingTimeInterval(-7200)
        let (status, changed) = tracker.update(readings(saved: saved))
        #expect(status == TimeSourceStatus(source: .restored, confirmedAt: saved))
        #expect(changed)
        #expect(!status.source.isConfirmed)
    }

    @Test func anRTCThatSetTheClockAtBootAndReadsSanelyIsTheSource() {
        var tracker = TimeSourceTracker(releaseDate: Self.release)
        let rtc = RTCReading(setSystemClockAtBoot: true, reads: Self.boot)
        #expect(tracker.update(readings(rtc: rtc)).status == TimeSourceStatus(source: .rtc, confirmedAt: Self.boot))
    }

    @Test func anRTCThatAgreesWithTheClockIsTheSourceThoughItDidNotSetItAtBoot() {
        var tracker = TimeSourceTracker(releaseDate: Self.release)
        let now = Self.boot.addingTimeInterval(60)
        let rtc = RTCReading(setSystemClockAtBoot: false, reads: now.addingTimeInterval(-1))
        #expect(tracker.update(readings(rtc: rtc)).status == TimeSourceStatus(source: .rtc, confirmedAt: now))
    }

    @Test(arguments: [
        RTCReading(setSystemClockAtBoot: false, reads: boot),
        RTCReading(setSystemClockAtBoot: true, reads: Date(timeIntervalSince1970: 0)),
        RTCReading(setSystemClockAtBoot: true, reads: nil),
    ])
    func anRTCThatDidNotSetTheClockOrReadsNonsenseIsNotTrusted(rtc: RTCReading) {
        var tracker = TimeSourceTracker(releaseDate: Self.release)
        #expect(tracker.update(readings(rtc: rtc)).status.source == .restored)
    }

    @Test func ntpStaysTheSourceForTheBootOnceSynchronisedConfirmedWhenLastSeen() {
        var tracker = TimeSourceTracker(releaseDate: Self.release)
        #expect(tracker.update(readings(at: 60)).changed)
        let synced = tracker.update(readings(at: 120, synchronized: true))
        #expect(synced.status == TimeSourceStatus(source: .ntp, confirmedAt: Self.boot.addingTimeInterval(120)))
        #expect(synced.changed)
        let again = tracker.update(readings(at: 180, synchronized: true))
        #expect(again.status.confirmedAt == Self.boot.addingTimeInterval(180))
        #expect(!again.changed, "a new confirmation is not a change of source")
        let lost = tracker.update(readings(at: 3600, synchronized: false))
        #expect(lost.status == TimeSourceStatus(source: .ntp, confirmedAt: Self.boot.addingTimeInterval(180)))
        #expect(!lost.changed)
    }

    @Test func thePhoneAndNTPTheLaterOfTheTwoIsTheSource() {
        var tracker = TimeSourceTracker(releaseDate: Self.release)
        tracker.phoneSetTheClock(at: Self.boot.addingTimeInterval(30))
        #expect(tracker.update(readings(at: 60)).status == TimeSourceStatus(source: .phone, confirmedAt: Self.boot.addingTimeInterval(30)))
        #expect(tracker.update(readings(at: 90, synchronized: true)).status.source == .ntp)
        tracker.phoneSetTheClock(at: Self.boot.addingTimeInterval(400))
        #expect(tracker.update(readings(at: 500)).status == TimeSourceStatus(source: .phone, confirmedAt: Self.boot.addingTimeInterval(400)))
    }
}

@Suite struct SystemClockReadingsTests {
    /// A directory shaped like `/` holding only `files`, each modified at `mtime` if given.
    func withRoot(_ files: [String: String], mtime: Date? = nil, _ body: (String) throws -> Void) throws {
        let root = try TemporaryDirectory()
        for (path, contents) in files {
            var directory = root.path
            for component in path.split(separator: "/").dropLast() {
                directory += "/\(component)"
                mkdir(directory, 0o755)
            }
            let full = root.path + "/" + path
            let file = try #require(fopen(full, "w"))
            fputs(contents, file)
            fclose(file)
            if let mtime {
                let seconds = Int(mtime.timeIntervalSince1970)
                var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
                #expect(utimensat(AT_FDCWD, full, &times, 0) == 0)
            }
        }
        try body(root.path)
    }

    static let now = Date(timeIntervalSince1970: 1_796_000_000)

    func reader(_ root: String, synchronized: Bool = false) -> SystemClockReadings {
        SystemClockReadings(root: root, now: { Self.now }, sinceBoot: { .seconds(100) }, synchronized: { synchronized })
    }

    @Test func theRTCsFilesAndTheSavedClocksTimeAreRead() throws {
        let saved = Date(timeIntervalSince1970: 1_795_990_000)
        try withRoot([
            "sys/class/rtc/rtc0/hctosys": "1\n", "sys/class/rtc/rtc0/since_epoch": "1795999990\n",
            "var/lib/systemd/timesync/clock": "",
        ], mtime: saved) { root in
            let readings = reader(root, synchronized: true).read()
            #expect(readings == ClockReadings(
                now: Self.now, bootedAt: Self.now.addingTimeInterval(-100), ntpSynchronized: true,
                rtc: RTCReading(setSystemClockAtBoot: true, reads: Date(timeIntervalSince1970: 1_795_999_990)), savedClockAt: saved))
        }
    }

    @Test func noRTCAndNoClockFileReadAsNone() throws {
        try withRoot([:]) { root in
            let readings = reader(root).read()
            #expect(readings.rtc == nil)
            #expect(readings.savedClockAt == nil)
        }
    }

    @Test func anRTCThatDidNotSetTheClockAndCannotBeReadIsSaid() throws {
        try withRoot(["sys/class/rtc/rtc0/hctosys": "0\n", "etc/fake-hwclock.data": "2026-11-28 06:00:00\n"]) { root in
            let readings = reader(root).read()
            #expect(readings.rtc == RTCReading(setSystemClockAtBoot: false, reads: nil))
            #expect(readings.savedClockAt != nil)
        }
    }
}
