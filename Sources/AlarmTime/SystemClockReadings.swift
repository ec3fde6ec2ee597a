import FoundationEssentials
import Glibc
import LinuxSupport

/// Reads ``ClockReadings`` from the kernel and the clock files, under `root` (`/` on a board, a
/// directory shaped like one in tests).
public struct SystemClockReadings: Sendable {
    /// Where the clock files that restore the time at boot are saved: systemd-timesyncd's (its
    /// modification time is the time saved) and fake-hwclock's.
    public static let savedClockFiles = ["var/lib/systemd/timesync/clock", "etc/fake-hwclock.data"]

    public let root: String
    private let now: @Sendable () -> Date
    private let sinceBoot: @Sendable () -> Duration
    private let synchronized: @Sendable () -> Bool

    /// By default the wall clock, `CLOCK_BOOTTIME` and the kernel's NTP state (`adjtimex`).
    public init(
        root: String = "/", now: @escaping @Sendable () -> Date = { Date() },
        sinceBoot: @escaping @Sendable () -> Duration = { SystemClocks.bootTime },
        synchronized: @escaping @Sendable () -> Bool = { SystemClocks.isSynchronized }
    ) {
        self.root = root.hasSuffix("/") ? root : root + "/"
        self.now = now
        self.sinceBoot = sinceBoot
        self.synchronized = synchronized
    }

    public func read() -> ClockReadings {
        let now = now()
        return ClockReadings(
            now: now, bootedAt: now.addingTimeInterval(-(sinceBoot() / .seconds(1))),
            ntpSynchronized: synchronized(), rtc: rtc(), savedClockAt: savedClockAt())
    }

    /// `rtc0`'s `hctosys` and `since_epoch`; `nil` without an RTC.
    private func rtc() -> RTCReading? {
        let directory = root + "sys/class/rtc/rtc0/"
        guard access(directory, F_OK) == 0 else { return nil }
        let setAtBoot = Self.firstLine(of: directory + "hctosys") == "1"
        let reads = Self.firstLine(of: directory + "since_epoch").flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:))
        return RTCReading(setSystemClockAtBoot: setAtBoot, reads: reads)
    }

    private func savedClockAt() -> Date? {
        Self.savedClockFiles.compactMap { path -> Date? in
            var info = stat()
            guard stat(root + path, &info) == 0 else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
        }.max()
    }

    /// The first line of a small sysfs or state file, without its newline; `nil` if it cannot
    /// be read.
    public static func firstLine(of path: String) -> String? {
        guard case .success(let bytes) = SystemFile.read(path, maximumSize: 4096) else { return nil }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init)
    }
}
