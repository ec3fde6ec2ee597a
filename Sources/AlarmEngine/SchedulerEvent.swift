import AlarmModel
import FoundationEssentials

/// Something that happened to an alarm, reported by ``AlarmScheduler`` for the shell to log,
/// persist and publish. The scheduler itself does no I/O.
public enum SchedulerEvent: Hashable, Sendable {
    case scheduled(AlarmKey)
    /// A countdown began (timer, pre-alert or snooze) and ends at `fireDate`.
    case countdownStarted(AlarmKey, fireDate: Date)
    case paused(AlarmKey)
    case resumed(AlarmKey, fireDate: Date)
    /// The alarm started ringing, `lateBy` seconds after it was due.
    case alertStarted(AlarmKey, lateBy: TimeInterval)
    /// A person or client stopped it.
    case stopped(AlarmKey)
    /// Nobody answered within the auto-silence time.
    case autoSilenced(AlarmKey)
    case missed(MissedAlarm)
    /// Its owner disabled it (``AlarmCommand/disable``).
    case disabled(AlarmKey)
    /// Its owner enabled it, or undid a skip (``AlarmCommand/enable``).
    case enabled(AlarmKey)
    /// Its owner skipped its next occurrence (``AlarmCommand/skip``).
    case skipped(AlarmKey)
    /// Its owner changed how it wakes (``AlarmWake``): its next alert plays so.
    case wakeChanged(AlarmKey)
    /// A repeating alarm moved on to its next occurrence.
    case rescheduled(AlarmKey, nextDueDate: Date?)
    /// The alarm no longer exists (cancelled, or a one-shot that finished).
    case removed(AlarmKey)
}

/// What one call into the scheduler changed.
public struct SchedulerOutcome: Hashable, Sendable {
    /// In the order they happened.
    public var events: [SchedulerEvent] = []
    /// Clients whose alarm lists changed; each gets a fresh `alarmUpdates` element.
    public var changedOwners: Set<ClientID> = []
    /// Whether the list of missed alarms changed.
    public var missedAlarmsChanged = false

    public init() {}

    /// Whether anything must be persisted or published.
    public var hasChanges: Bool { !changedOwners.isEmpty || missedAlarmsChanged }

    mutating func merge(_ other: SchedulerOutcome) {
        events += other.events
        changedOwners.formUnion(other.changedOwners)
        missedAlarmsChanged = missedAlarmsChanged || other.missedAlarmsChanged
    }
}
