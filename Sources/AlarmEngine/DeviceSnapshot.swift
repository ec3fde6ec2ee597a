import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials

/// Everything the device's own face needs at one instant: what alerts, what counts down, the next
/// alarm, what was missed, and whether the clock can be believed. All clients' alarms together:
/// the device is shared by everyone who sets alarms on it.
public struct DeviceSnapshot: Sendable {
    public var now: Date
    /// The zone alarms are resolved in, for showing local times.
    public var timeZone: TimeZoneRules
    public var isClockTrusted: Bool
    /// Alerting alarms, the one to present first at the front (the newest alert).
    public var alerting: [AlarmRecord]
    /// Running countdowns, the one ending first at the front, then paused ones, oldest first.
    public var countdowns: [AlarmRecord]
    /// The scheduled alarm due first, if any is determined.
    public var nextAlarm: UpcomingAlarm?
    /// Missed alarms waiting to be seen, oldest first.
    public var missedAlarms: [MissedAlarm]
    /// How many changes the engine had published when this was taken: of two snapshots, the one
    /// with the higher revision is the newer.
    public var revision: UInt64
    /// Whether the store can be written (the scheduler does not know: the runtime fills it in).
    public var storage: StorageHealth
    /// Where the clock's time came from (the runtime fills it in; `nil` when it cannot tell).
    public var timeSource: TimeSource?

    public init(
        now: Date, timeZone: TimeZoneRules, isClockTrusted: Bool, alerting: [AlarmRecord] = [],
        countdowns: [AlarmRecord] = [], nextAlarm: UpcomingAlarm? = nil, missedAlarms: [MissedAlarm] = [],
        revision: UInt64 = 0, storage: StorageHealth = StorageHealth()
    ) {
        self.now = now
        self.timeZone = timeZone
        self.isClockTrusted = isClockTrusted
        self.alerting = alerting
        self.countdowns = countdowns
        self.nextAlarm = nextAlarm
        self.missedAlarms = missedAlarms
        self.revision = revision
        self.storage = storage
    }
}

/// A scheduled alarm and the instant its occurrence is due.
public struct UpcomingAlarm: Hashable, Sendable {
    public var record: AlarmRecord
    public var dueDate: Date

    public init(record: AlarmRecord, dueDate: Date) {
        self.record = record
        self.dueDate = dueDate
    }
}

/// How many alarms one client has, or all clients together, how many of them ring, and which is
/// due next.
public struct AlarmSummary: Hashable, Sendable {
    public var alarmCount: Int
    public var alertingCount: Int
    /// The scheduled alarm due first, if any is determined.
    public var nextAlarm: UpcomingAlarm?
    /// When the scheduled alarms are due, soonest first, each instant once (alarms due together
    /// share it), at most ``upcomingLimit`` of them.
    public var upcoming: [Date]

    /// How many due instants ``upcoming`` carries: a household's mornings, not every alarm of a
    /// long list.
    public static let upcomingLimit = 16

    public init(alarmCount: Int, alertingCount: Int, nextAlarm: UpcomingAlarm?, upcoming: [Date] = []) {
        self.alarmCount = alarmCount
        self.alertingCount = alertingCount
        self.nextAlarm = nextAlarm
        self.upcoming = upcoming
    }
}

extension AlarmScheduler {
    /// The device's view at `now`. Linear in the number of alarms: the appliance asks for it on
    /// a change or once a minute, not per alarm.
    public func deviceSnapshot(now: Date, revision: UInt64 = 0) -> DeviceSnapshot {
        var running: [(record: AlarmRecord, fireDate: Date)] = []
        var paused: [AlarmRecord] = []
        for record in records.values {
            switch record.phase {
            case .countdown(let countdown):
                running.append((record, countdown.fireDate))
            case .paused:
                paused.append(record)
            case .scheduled, .alerting:
                break
            }
        }
        running.sort { $0.fireDate != $1.fireDate ? $0.fireDate < $1.fireDate : Self.creationOrder($0.record, $1.record) }
        paused.sort(by: Self.creationOrder)
        return DeviceSnapshot(
            now: now, timeZone: timeZone, isClockTrusted: isClockTrusted,
            alerting: alertingOrder.compactMap { records[$0] },
            countdowns: running.map(\.record) + paused,
            nextAlarm: nextAlarm(among: records.values), missedAlarms: missedAlarms, revision: revision)
    }

    /// `owner`'s alarms, or every client's for `nil` (what the device itself shows). Linear in the
    /// number of alarms counted.
    public func summary(of owner: ClientID?) -> AlarmSummary {
        let counted = owner.map { owner in records.keys.filter { $0.owner == owner }.compactMap { records[$0] } } ?? Array(records.values)
        let alerting = owner == nil ? alertingOrder.count : counted.count(where: \.phase.isAlerting)
        let due = scheduledAlarms(among: counted)
        let upcoming = Set(due.map(\.dueDate)).sorted().prefix(AlarmSummary.upcomingLimit)
        return AlarmSummary(alarmCount: counted.count, alertingCount: alerting, nextAlarm: Self.first(due), upcoming: Array(upcoming))
    }

    /// The scheduled alarm due first among `records`; of alarms due together, the one scheduled first.
    private func nextAlarm(among records: some Sequence<AlarmRecord>) -> UpcomingAlarm? {
        Self.first(scheduledAlarms(among: records))
    }

    private static func first(_ due: [UpcomingAlarm]) -> UpcomingAlarm? {
        due.min { $0.dueDate != $1.dueDate ? $0.dueDate < $1.dueDate : creationOrder($0.record, $1.record) }
    }

    /// Every alarm of `records` waiting for a determined occurrence, with when it is due.
    private func scheduledAlarms(among records: some Sequence<AlarmRecord>) -> [UpcomingAlarm] {
        records.compactMap { record in
            // A held occurrence waits for the clock to come back: it is not what rings next.
            guard case .scheduled(let occurrence?) = record.phase, record.held?.occurrence != occurrence else { return nil }
            return UpcomingAlarm(record: record, dueDate: dueDate(of: occurrence, for: record.definition))
        }
    }
}
