import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials
import Logging

extension AlarmRuntime {
    /// Sleeps until the next deadline, handles it, and sleeps again; re-armed by ``rearmTimer()``.
    func runTimer() async {
        while !Task.isCancelled {
            // A clock set between two sleeps is not reported by the next one: look before sleeping.
            if abs(Self.offset(now: clock.now, monotonic: clock.monotonicNow) - clockOffset) > 1 {
                handleWake(.clockChanged)
                continue
            }
            let deadline = wakeDeadline()
            armedDeadline = deadline
            let sleep = Task { [clock] in try await clock.sleep(until: deadline) }
            sleepTask = sleep
            let wake = await withTaskCancellationHandler {
                try? await sleep.value
            } onCancel: {
                sleep.cancel()
            }
            sleepTask = nil
            armedDeadline = nil
            if Task.isCancelled { return }
            // nil: the sleep was cut short to re-arm; evaluating is harmless and cheap.
            handleWake(wake ?? .deadlineReached)
        }
    }

    /// Cuts the current sleep short if the next deadline moved, so the timer is armed for it:
    /// sooner, so nothing rings late; later, so the process does not wake for nothing.
    func rearmTimer() {
        guard let armed = armedDeadline else { return }
        if wakeDeadline() != armed {
            sleepTask?.cancel()
        }
    }

    /// How long an unanswered alert rings (the household's setting); `0` rings until stopped.
    /// An alert ringing now is silenced at its start plus the new length.
    public func setAutoSilence(_ seconds: TimeInterval) {
        scheduler.policy.autoSilence = max(0, seconds)
        rearmTimer()
    }

    private func wakeDeadline() -> Date {
        var deadline = nextDeadline ?? SystemWallClock.latestArmableDeadline
        if !scheduler.isClockTrusted, let interval = clockTrust.recheckInterval {
            deadline = min(deadline, clock.now.addingTimeInterval(interval))
        }
        // NTP can confirm the time by slewing, without a jump to wake the engine: look again.
        if isLookingForConfirmation {
            deadline = min(deadline, clock.now.addingTimeInterval(Self.timeSourceRecheckInterval))
        }
        return deadline
    }

    /// How often an unconfirmed time source is read again.
    static let timeSourceRecheckInterval: TimeInterval = 60

    /// Reads the machine's clock state and decides the time source; journals a change once and
    /// returns whether there was one.
    @discardableResult
    func updateTimeSource() -> Bool {
        guard let clockReadings else { return false }
        let (status, changed) = timeSourceTracker.update(clockReadings())
        guard changed else { return false }
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
        return true
    }

    /// A person set the clock (from the phone page or a shell) to the time it reads now: the
    /// time source becomes `phone`, and the jump is handled as a confirmed one.
    public func clockSetByPerson(from who: String, previous: Date) {
        logger.notice("Clock set by a person", metadata: [
            "clock.by": "\(who)", "clock.from": "\(ISO8601.format(previous, in: .utc))", "clock.to": "\(ISO8601.format(clock.now, in: .utc))",
        ])
        timeSourceTracker.phoneSetTheClock(at: clock.now)
        handleWake(.clockChanged)
    }

    /// Whether the engine reads the machine at each wake (and once a minute): while nothing has
    /// confirmed the time, or occurrences are held. A confirmed clock is read again only at a
    /// jump, or when someone asks (``currentTimeSource()``).
    var isLookingForConfirmation: Bool {
        clockReadings != nil && (timeSourceTracker.status?.source.isConfirmed != true || scheduler.hasHeldOccurrences)
    }

    /// Where the clock's time came from, as last decided; `nil` without ``Configuration/clockReadings``.
    public var timeSource: TimeSourceStatus? { timeSourceTracker.status }

    /// The time source read from the machine now (when NTP last confirmed it, for `status`).
    public func currentTimeSource() -> TimeSourceStatus? {
        if updateTimeSource() { publishDeviceSnapshot() }
        return timeSourceTracker.status
    }

    /// Brings everything up to the clock: trust, jumps and due deadlines.
    func handleWake(_ wake: WallClockWake) {
        if let unread = unreadStore, unread.readStarted == nil, clock.now >= unread.retryAt { startReadingStoreAgain() }
        let now = clock.now
        let offset = Self.offset(now: now, monotonic: clock.monotonicNow)
        let jump = offset - clockOffset
        clockOffset = offset
        var outcome = SchedulerOutcome()
        // A set clock is reported by the timer; a jump between two sleeps shows in the offset.
        // The jump comes first: which dates move with it depends on the trust from before it.
        let jumped = wake == .clockChanged || abs(jump) > 1
        // The machine is read before a jump is handled (whether NTP confirmed it), and otherwise
        // only after what is due is published: an alert's sound never waits for sysfs.
        var sourceChanged = false
        if jumped {
            sourceChanged = updateTimeSource()
            logger.notice("Wall clock set; re-evaluating every alarm", metadata: ["clock.jump": "\(jump)"])
            let holding = jump > 0 && isUnconfirmedJump(to: now)
            outcome.merge(scheduler.clockChanged(jump: jump, now: now, holding: holding))
            if holding, scheduler.hasHeldOccurrences {
                logger.warning(
                    "Wall clock jumped ahead and nothing confirms it; the alarms it passed over are held until NTP or a phone confirms the time, or the clock comes back",
                    metadata: ["clock.jump": "\(jump)"])
            }
        }
        let trusted = clockTrust.isTrusted(now: now)
        let trustChanged = trusted != scheduler.isClockTrusted
        if trustChanged {
            logger.notice(trusted ? "Wall clock now trusted" : "Wall clock no longer trusted", metadata: ["clock.now": "\(now)"])
            outcome.merge(scheduler.setClockTrusted(trusted, now: now))
        } else if !jumped {
            outcome.merge(scheduler.evaluate(now: now))
        }
        commitTimeDriven(outcome, because: jumped || trustChanged ? .clockSet : nil)
        if !jumped, isLookingForConfirmation { sourceChanged = updateTimeSource() }
        if sourceChanged { publishDeviceSnapshot() }
        if scheduler.hasHeldOccurrences, let confirmedAt = externalConfirmation {
            commitTimeDriven(scheduler.confirmHeld(confirmedAt: confirmedAt, now: now), because: .clockSet)
        }
    }

    /// When NTP or a phone last vouched for the time; an RTC does not confirm a jump (a bad
    /// one may be what made it).
    private var externalConfirmation: Date? {
        guard let status = timeSourceTracker.status, status.source == .ntp || status.source == .phone else { return nil }
        return status.confirmedAt
    }

    /// Whether a forward jump to `now` is only the clock's word: no NTP or phone confirmation at
    /// it. Without readings of the machine (tests, scenarios) every jump is believed.
    private func isUnconfirmedJump(to now: Date) -> Bool {
        guard clockReadings != nil else { return false }
        guard let confirmedAt = externalConfirmation else { return true }
        return confirmedAt < now.addingTimeInterval(-Self.confirmationSlack)
    }

    /// How long before the engine sees a jump NTP may have confirmed it (it steps, then says so).
    static let confirmationSlack: TimeInterval = 5

    /// Follows the device's time zone.
    func followTimeZone(_ changes: AsyncStream<Void>) async {
        for await _ in changes {
            timeZoneMayHaveChanged()
        }
    }

    /// Reads the zone now and re-evaluates relative alarms if it changed; ``run()`` calls it for
    /// each change the provider reports, a stepped simulation calls it directly.
    public func timeZoneMayHaveChanged() {
        let zone: TimeZoneRules
        do {
            zone = try timeZones.currentZone()
        } catch {
            logger.error("Time zone unreadable; keeping the previous one", metadata: ["timezone.error": "\(error)"])
            return
        }
        guard zone != scheduler.timeZone else { return }
        logger.notice("Time zone changed; re-evaluating relative alarms", metadata: [
            "timezone.from": "\(scheduler.timeZone.identifier)", "timezone.to": "\(zone.identifier)",
        ])
        commitTimeDriven(scheduler.timeZoneChanged(to: zone, now: clock.now))
    }

    /// One line per event a person would notice; decisions at debug level.
    static func log(_ events: [SchedulerEvent], to logger: Logger) {
        for event in events {
            switch event {
            case .scheduled(let key):
                logger.info("Alarm scheduled", metadata: metadata(key))
            case .countdownStarted(let key, let fireDate):
                logger.info("Alarm counting down", metadata: metadata(key, ["alarm.fireDate": "\(fireDate)"]))
            case .paused(let key):
                logger.info("Alarm paused", metadata: metadata(key))
            case .resumed(let key, let fireDate):
                logger.info("Alarm resumed", metadata: metadata(key, ["alarm.fireDate": "\(fireDate)"]))
            case .alertStarted(let key, let lateBy):
                logger.info("Alarm alerting", metadata: metadata(key, ["alarm.lateBy": "\(Int(lateBy))"]))
            case .stopped(let key):
                logger.info("Alarm stopped", metadata: metadata(key))
            case .autoSilenced(let key):
                logger.notice("Alarm silenced after ringing unanswered", metadata: metadata(key))
            case .missed(let missed):
                logger.warning("Alarm missed", metadata: metadata(missed.key, [
                    "alarm.reason": "\(missed.reason.rawValue)", "alarm.dueDate": "\(missed.dueDate)",
                    "alarm.occurrences": "\(missed.occurrences)",
                ]))
            case .rescheduled(let key, let next):
                logger.debug("Alarm moved to its next occurrence", metadata: metadata(key, [
                    "alarm.dueDate": "\(next.map { "\($0)" } ?? "when the clock is trusted")",
                ]))
            case .removed(let key):
                logger.debug("Alarm removed", metadata: metadata(key))
            case .disabled(let key):
                logger.info("Alarm disabled", metadata: metadata(key))
            case .enabled(let key):
                logger.info("Alarm enabled", metadata: metadata(key))
            case .skipped(let key):
                logger.info("Alarm skips its next occurrence", metadata: metadata(key))
            case .wakeChanged(let key):
                logger.info("Alarm's wake changed", metadata: metadata(key))
            }
        }
    }

    /// Logs the alerts the engine takes up rather than starts: one that was ringing when the
    /// process stopped (or that only a store file read again held) rings on the device from now
    /// on, later than it was due by `lateBy`, whatever the line logged when it began said.
    /// Alerts in `events` (started now) and in `excluded` are not logged.
    static func logResumedAlerts(
        of scheduler: AlarmScheduler, besides events: [SchedulerEvent], excluded: Set<AlarmKey> = [], now: Date,
        to logger: Logger
    ) {
        var started = excluded
        for case .alertStarted(let key, _) in events { started.insert(key) }
        for key in scheduler.alertingOrder.reversed() where !started.contains(key) {
            guard case .alerting(let alerting)? = scheduler.record(for: key)?.phase else { continue }
            logger.info("Alarm alerting", metadata: metadata(key, [
                "alarm.lateBy": "\(Int(now.timeIntervalSince(alerting.dueDate)))", "alarm.alertingSince": "\(alerting.since)",
            ]))
        }
    }

    /// An alarm's id and its owner (ids are each client's own), and `more`.
    private static func metadata(_ key: AlarmKey, _ more: Logger.Metadata = [:]) -> Logger.Metadata {
        more.merging(["alarm.id": "\(key.id)", "client": "\(key.owner)"]) { given, _ in given }
    }
}
