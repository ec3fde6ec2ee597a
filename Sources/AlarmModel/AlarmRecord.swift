import AlarmKitCore
import FoundationEssentials

/// One alarm as the engine keeps it: the client's definition and where it is in its life.
///
/// This is also the unit of the durable store, so its shape is part of the store format.
public struct AlarmRecord: Codable, Hashable, Sendable {
    /// The id the owner gave it: unique among the owner's alarms, not on the device (see ``key``).
    public var id: Alarm.ID
    public var owner: ClientID
    public var definition: AlarmDefinition
    public var phase: AlarmPhase
    public var createdAt: Date
    /// Increases with every alarm scheduled on the device: orders lists by creation, also for
    /// alarms scheduled in the same instant.
    public var sequenceNumber: UInt64
    /// The latest local day of a relative alarm that rang or was missed: no later occurrence may
    /// be on or before it, whatever the clock, the zone or its trust do meanwhile.
    public var lastOccurrenceDay: CivilDate?
    /// Whether the dates of the current phase (a countdown's start, an alert's start) were written
    /// while the wall clock was untrusted. Only such dates move with the clock when it is set from
    /// an untrusted time: dates written under a trusted clock, before a power cut, are real.
    public var datesFromUntrustedClock = false
    /// `false` while disabled (``AlarmCommand/disable``): the phase is then `.scheduled(nil)`,
    /// so it has no deadline, never rings and is never missed.
    public var enabled = true
    /// The local day (in the device's zone) of the occurrence a weekly alarm skips
    /// (``AlarmCommand/skip``): the scheduler never picks it as the next occurrence, and forgets
    /// it once that day has ended. A civil day, not an instant, so a DST change, a zone change or
    /// a clock jump cannot move the skip onto another day.
    public var skippedDate: CivilDate?
    /// The app that scheduled it, as the client declared itself when it connected; `nil` when
    /// it declared none. Its intents go to that app's processes only (`IntentRecipient`).
    public var app: String?
    /// An occurrence a forward clock jump passed over while nothing confirmed the new time: kept
    /// rather than missed, it rings on its real time if the clock comes back before it, and is
    /// recorded as missed once a trusted source confirms the jump.
    public var held: HeldOccurrence?
    /// How it wakes where it differs from the household's settings (``AlarmWake``); `nil` for
    /// the household's.
    public var wake: AlarmWake?

    public init(
        id: Alarm.ID, owner: ClientID, definition: AlarmDefinition, phase: AlarmPhase, createdAt: Date,
        sequenceNumber: UInt64
    ) {
        self.id = id
        self.owner = owner
        self.definition = definition
        self.phase = phase
        self.createdAt = createdAt
        self.sequenceNumber = sequenceNumber
    }

    /// Reads `enabled`, `skippedDate`, `app` and `wake` as enabled, skipping nothing, no app and
    /// the household's wake when they are absent, so that stores written without them load.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Alarm.ID.self, forKey: .id)
        owner = try container.decode(ClientID.self, forKey: .owner)
        definition = try container.decode(AlarmDefinition.self, forKey: .definition)
        phase = try container.decode(AlarmPhase.self, forKey: .phase)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        sequenceNumber = try container.decode(UInt64.self, forKey: .sequenceNumber)
        lastOccurrenceDay = try container.decodeIfPresent(CivilDate.self, forKey: .lastOccurrenceDay)
        datesFromUntrustedClock = try container.decode(Bool.self, forKey: .datesFromUntrustedClock)
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
        skippedDate = try container.decodeIfPresent(CivilDate.self, forKey: .skippedDate)
        app = try container.decodeIfPresent(String.self, forKey: .app)
        held = try container.decodeIfPresent(HeldOccurrence.self, forKey: .held)
        wake = try container.decodeIfPresent(AlarmWake.self, forKey: .wake)
    }

    public var alarm: Alarm {
        Alarm(id: id, schedule: definition.schedule, countdownDuration: definition.countdownDuration, state: phase.state)
    }
}

/// An occurrence held over an unconfirmed forward clock jump (``AlarmRecord/held``).
public struct HeldOccurrence: Codable, Hashable, Sendable {
    /// The occurrence the jump passed over.
    public var occurrence: Occurrence
    /// The record's ``AlarmRecord/lastOccurrenceDay`` before it moved on past the jump, put back
    /// if the clock returns.
    public var lastOccurrenceDay: CivilDate?
    /// The clock's time just after the jump: only a confirmation of the time from then on
    /// (NTP synchronised, a phone) makes the jump real.
    public var since: Date

    public init(occurrence: Occurrence, lastOccurrenceDay: CivilDate?, since: Date) {
        self.occurrence = occurrence
        self.lastOccurrenceDay = lastOccurrenceDay
        self.since = since
    }
}

/// Which firing of a scheduled alarm an alert or countdown belongs to.
///
/// A relative alarm's occurrence is a local calendar day: its instant is resolved in the zone in
/// force, so it follows zone changes, and a day that has rung never rings again.
public enum Occurrence: Codable, Hashable, Sendable {
    /// The single instant of a `.fixed` schedule.
    case fixed(Date)
    /// The local day of a `.relative` schedule.
    case day(CivilDate)
}

/// Where an alarm is in its life, with what the engine needs to carry on after a restart.
public enum AlarmPhase: Codable, Hashable, Sendable {
    /// Waiting for `occurrence`. `nil` means not yet determined: a relative alarm set while the
    /// clock is untrusted gets its day once the clock is known good.
    case scheduled(Occurrence?)
    case countdown(CountdownPhase)
    case paused(PausedPhase)
    case alerting(AlertingPhase)

    public var isAlerting: Bool {
        if case .alerting = self { return true }
        return false
    }

    /// The occurrence this phase belongs to, if any.
    public var occurrence: Occurrence? {
        switch self {
        case .scheduled(let occurrence): occurrence
        case .countdown(let countdown): countdown.occurrence
        case .paused(let paused): paused.occurrence
        case .alerting(let alerting): alerting.occurrence
        }
    }

    /// Whether the phase holds instants measured on the wall clock (a start or a since).
    package var hasWallClockDates: Bool {
        switch self {
        case .countdown, .alerting: true
        case .scheduled, .paused: false
        }
    }

    public var state: Alarm.State {
        switch self {
        case .scheduled: .scheduled
        case .countdown: .countdown
        case .paused: .paused
        case .alerting: .alerting
        }
    }
}

/// A running countdown: a timer, the pre-alert countdown of a scheduled alarm, or a snooze.
public struct CountdownPhase: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Hashable, Sendable {
        /// A timer: it measures elapsed time.
        case timer
        /// The countdown before a scheduled occurrence: it ends at the occurrence's wall time.
        case preAlert
        /// A snooze or repeat after an alert: it measures elapsed time.
        case postAlert
    }

    public var kind: Kind
    /// When the countdown last started or resumed, on the wall clock.
    public var startDate: Date
    /// Seconds counted before `startDate`.
    public var previouslyElapsed: TimeInterval
    /// The whole countdown, in seconds.
    public var total: TimeInterval
    /// The occurrence the alert at the end belongs to; `nil` for a timer.
    public var occurrence: Occurrence?

    public var fireDate: Date { startDate.addingTimeInterval(total - previouslyElapsed) }

    package init(kind: Kind, startDate: Date, previouslyElapsed: TimeInterval, total: TimeInterval, occurrence: Occurrence? = nil) {
        self.kind = kind
        self.startDate = startDate
        self.previouslyElapsed = previouslyElapsed
        self.total = total
        self.occurrence = occurrence
    }
}

public struct PausedPhase: Codable, Hashable, Sendable {
    public var kind: CountdownPhase.Kind
    public var previouslyElapsed: TimeInterval
    public var total: TimeInterval
    public var occurrence: Occurrence?

    package init(kind: CountdownPhase.Kind, previouslyElapsed: TimeInterval, total: TimeInterval, occurrence: Occurrence? = nil) {
        self.kind = kind
        self.previouslyElapsed = previouslyElapsed
        self.total = total
        self.occurrence = occurrence
    }
}

public struct AlertingPhase: Codable, Hashable, Sendable {
    /// When it started ringing; auto-silence counts from here.
    public var since: Date
    /// When it was due (the occurrence's instant or the end of the countdown).
    public var dueDate: Date
    /// The local wall time the alert is for, shown on the display.
    public var time: Alarm.Schedule.Relative.Time
    public var occurrence: Occurrence?

    package init(since: Date, dueDate: Date, time: Alarm.Schedule.Relative.Time, occurrence: Occurrence? = nil) {
        self.since = since
        self.dueDate = dueDate
        self.time = time
        self.occurrence = occurrence
    }
}

/// An alarm that did not ring, or rang unanswered: kept for the display until acknowledged.
public struct MissedAlarm: Codable, Hashable, Sendable {
    public enum Reason: String, Codable, Hashable, Sendable {
        /// Its time passed more than the grace period ago (device off, clock jump).
        case tooLate
        /// It rang for the auto-silence time and nobody answered.
        case unanswered
    }

    public var alarmID: Alarm.ID
    public var owner: ClientID
    public var title: String
    /// When it was due; for several missed occurrences, the latest.
    public var dueDate: Date
    public var reason: Reason
    /// How many occurrences this record stands for (a device off for three days misses three).
    public var occurrences: Int
    public var recordedAt: Date

    package init(alarmID: Alarm.ID, owner: ClientID, title: String, dueDate: Date, reason: Reason, occurrences: Int, recordedAt: Date) {
        self.alarmID = alarmID
        self.owner = owner
        self.title = title
        self.dueDate = dueDate
        self.reason = reason
        self.occurrences = occurrences
        self.recordedAt = recordedAt
    }
}
