import AlarmEngine
import AlarmModel
import AlarmTime
import FoundationEssentials
import Logging
import Synchronization

/// The clock's ``TimeSource``, read from the machine when asked and journaled once per change:
/// a restored or unset time as a warning (alarms ring at the clock's best guess), the others as
/// notices.
public final class TimeSourceMonitor: Sendable {
    private let readings: SystemClockReadings
    private let tracker: Mutex<TimeSourceTracker>
    private let logger: Logger

    public init(
        readings: SystemClockReadings = SystemClockReadings(), releaseDate: Date = ClockTrustPolicy.firmwareReleaseDate,
        logger: Logger
    ) {
        self.readings = readings
        self.tracker = Mutex(TimeSourceTracker(releaseDate: releaseDate))
        self.logger = logger
    }

    /// The source now.
    public func current() -> TimeSourceStatus {
        let reading = readings.read()
        let (status, changed) = tracker.withLock { $0.update(reading) }
        if changed { log(status) }
        return status
    }

    private func log(_ status: TimeSourceStatus) {
        let confirmed = status.confirmedAt.map { ISO8601.format($0, in: .utc) } ?? "never"
        let metadata: Logger.Metadata = ["clock.source": "\(status.source.rawValue)", "clock.confirmedAt": "\(confirmed)"]
        switch status.source {
        case .ntp, .rtc, .phone:
            logger.notice("Clock time confirmed", metadata: metadata)
        case .restored where status.confirmedAt != nil:
            logger.warning("Clock time not confirmed: restored from the time saved at the last shutdown; alarms ring at the clock's best guess", metadata: metadata)
        case .restored:
            logger.warning("Clock time not confirmed by NTP, a real-time clock or a phone; alarms ring at the clock's best guess", metadata: metadata)
        case .unset:
            logger.warning("Clock time not set: it reads before this firmware's release", metadata: metadata)
        }
    }
}
