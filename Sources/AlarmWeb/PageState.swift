import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTime
import FoundationEssentials
import LinuxSupport
import WebPairings

/// What the page shows, sent whole on every change (`GET /api/state`, the `state` events).
struct PageState: Encodable, Sendable {
    struct NextAlarm: Encodable, Sendable {
        var id: String
        var label: String
        var date: Date
    }

    struct AlarmItem: Encodable, Sendable {
        var id: String
        var label: String
        var time: String
        var repeatDays: [String]
        var enabled: Bool
        var skippedDate: String?
        var next: Date?
        var snoozeSeconds: Int?
        var sound: String?
        /// How it wakes: `nil` is the household's.
        var fadeSeconds: Int?
        var volumePercent: Int?
        var lightLeadSeconds: Int?
        var state: String
        var owner: String
        var mine: Bool

        enum CodingKeys: String, CodingKey {
            case id, label, time, repeatDays = "repeat", enabled, skippedDate, next, snoozeSeconds, sound, fadeSeconds,
                volumePercent, lightLeadSeconds, state, owner, mine
        }
    }

    struct TimerItem: Encodable, Sendable {
        var id: String
        var label: String
        var durationSeconds: Int
        var state: String
        var endsAt: Date?
        var remainingSeconds: Int
    }

    struct Ringing: Encodable, Sendable {
        var id: String
        var label: String
        var kind: String
        var mine: Bool
        /// Whether its Snooze snoozes: an app's alarm may have no secondary button, or one that
        /// does something else (``AlarmRecord/response(to:)``), and the page then offers none.
        var snoozes: Bool
    }

    struct Part: Encodable, Sendable {
        var name: String
        var ok: Bool
        var detail: String
    }

    struct Status: Encodable, Sendable {
        var parts: [Part]
        var clock: String
        /// Where the clock's time came from (`ntp`, `rtc`, `phone`, `restored`, `unset`); absent
        /// from a daemon that does not say.
        var timeSource: String?
        var timeConfirmedAt: Date?
        var storage: String
        var storageDetail: String
    }

    /// The household's settings, as alarmd's `settings` operation has them.
    struct Missed: Encodable, Sendable {
        var label: String
        var date: Date
        /// Why, when the clock knows ("the clock was set past its time", "rang unanswered").
        var why: String?
    }

    struct PairingItem: Encodable, Sendable {
        var id: String
        var name: String
        var created: Date
        var lastSeen: Date
        var current: Bool
    }

    var now: Date
    var zone: String
    var clockTrusted: Bool
    var clock24h = true
    var next: NextAlarm?
    var alarms: [AlarmItem] = []
    var timers: [TimerItem] = []
    /// The ringing alarms and timers, the one the clock presents (on its display, and to its
    /// buttons) first, by ``AlertPresentationOrder``: the page shows and stops that one too.
    var ringing: [Ringing] = []
    var status: Status?
    var settings: SettingsReport?
    var sounds: [String] = []
    /// The same sounds with where each comes from, its size and how many alarms use it.
    var soundFiles: [SoundFileInfo] = []
    var missed: [Missed] = []
    var pairings: [PairingItem] = []

    static let dayNames: [Locale.Weekday: String] = [
        .monday: "mon", .tuesday: "tue", .wednesday: "wed", .thursday: "thu", .friday: "fri", .saturday: "sat", .sunday: "sun",
    ]

    /// The page's view of alarmd's records: alarms (with a schedule) and timers, oldest first.
    /// - Parameter volumeScale: the dB range the clock's volume percentages span (`SettingsReport`).
    init(
        records: [AlarmRecord], status: StatusReport?, history: [HistoryEntry], ownUID: UInt32, zone: TimeZoneRules, now: Date,
        volumeScale: ClosedRange<Double> = AlarmWake.volumeRange
    ) {
        self.now = now
        self.zone = zone.identifier
        clockTrusted = status?.clockTrusted ?? true
        for record in records.sorted(by: { $0.sequenceNumber < $1.sequenceNumber }) {
            let label = record.definition.presentation.alert.title
            let mine = record.owner.rawValue == ownUID
            guard let schedule = record.definition.schedule else {
                timers.append(Self.timer(record, label: label, now: now))
                continue
            }
            let next = Self.nextAlert(record, zone: zone)
            var time: Alarm.Schedule.Relative.Time
            var days: [String] = []
            switch schedule {
            case .fixed(let date):
                let local = zone.localDateTime(at: date).time
                time = .init(hour: local.hour, minute: local.minute)
            case .relative(let relative):
                time = relative.time
                if case .weekly(let weekly) = relative.repeats {
                    let chosen = Set(weekly)
                    days = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday].filter(chosen.contains).compactMap { Self.dayNames[$0] }
                }
            }
            var sound: String?
            if case .named(let name) = record.definition.sound { sound = name }
            alarms.append(AlarmItem(
                id: record.id.uuidString, label: label, time: Self.twoDigits(time.hour) + ":" + Self.twoDigits(time.minute),
                repeatDays: days, enabled: record.enabled, skippedDate: record.skippedDate.map { "\($0)" }, next: next,
                snoozeSeconds: record.definition.countdownDuration?.postAlert.map { Int($0) },
                sound: sound, fadeSeconds: record.wake?.crescendoSeconds.map { Int($0.rounded()) },
                volumePercent: record.wake?.volumeDB.map { VolumePercent.percent(decibels: $0, scale: volumeScale) },
                lightLeadSeconds: record.wake?.lightLeadSeconds.map { Int($0.rounded()) }, state: record.enabled ? Self.state(of: record.phase) : "disabled", owner: UserNames.name(of: record.owner.rawValue) ?? "uid \(record.owner.rawValue)", mine: mine))
            if let next, self.next.map({ next < $0.date }) ?? true {
                self.next = NextAlarm(id: record.id.uuidString, label: label, date: next)
            }
        }
        // In the clock's own order: the first is the one on its display, which its buttons act on.
        ringing = AlertPresentationOrder.alerting(records).map { record in
            Ringing(
                id: record.id.uuidString, label: record.definition.presentation.alert.title,
                kind: record.definition.schedule == nil ? "timer" : "alarm", mine: record.owner.rawValue == ownUID,
                snoozes: (try? record.response(to: .secondary))?.action == .countdown)
        }
        // Alarms that could not ring or rang unanswered in the last day, newest first.
        missed = history.filter { ($0.kind == .missed || $0.kind == .autoSilenced) && now.timeIntervalSince($0.date) < 86_400 }
            .sorted { $0.date > $1.date }.map { Missed(label: $0.title, date: $0.date, why: $0.kind == .autoSilenced ? "rang unanswered" : $0.explanation) }
        if let status {
            let storage = status.parts.first { $0.name == "storage" }
            self.status = Status(
                parts: status.parts.filter { $0.name != "storage" }.map { Part(name: $0.name, ok: $0.state == "ok", detail: $0.detail ?? "") },
                clock: status.clockTrusted ? "trusted" : "not set", timeSource: status.timeSource?.rawValue,
                timeConfirmedAt: status.timeConfirmedAt, storage: storage?.state ?? "ok", storageDetail: storage?.detail ?? "")
        }
    }

    /// The paired browsers, the one viewing marked `current`.
    mutating func show(_ paired: [Pairing], to viewer: String) {
        pairings = paired.map {
            PairingItem(id: $0.id, name: $0.name, created: $0.created, lastSeen: $0.lastSeen, current: $0.id == viewer)
        }
    }

    private static func timer(_ record: AlarmRecord, label: String, now: Date) -> TimerItem {
        let total = Int(record.definition.countdownDuration?.preAlert ?? 0)
        switch record.phase {
        case .countdown(let countdown):
            return TimerItem(id: record.id.uuidString, label: label, durationSeconds: total, state: "countdown", endsAt: countdown.fireDate,
                             remainingSeconds: max(0, Int(countdown.fireDate.timeIntervalSince(now).rounded(.up))))
        case .paused(let paused):
            return TimerItem(id: record.id.uuidString, label: label, durationSeconds: total, state: "paused", endsAt: nil,
                             remainingSeconds: max(0, Int((paused.total - paused.previouslyElapsed).rounded(.up))))
        case .alerting, .scheduled:
            return TimerItem(id: record.id.uuidString, label: label, durationSeconds: total, state: "alerting", endsAt: nil, remainingSeconds: 0)
        }
    }

    /// When a scheduled alarm next rings, or a countdown (snooze, pre-alert) ends.
    static func nextAlert(_ record: AlarmRecord, zone: TimeZoneRules) -> Date? {
        switch record.phase {
        case .scheduled(.fixed(let date)?):
            return date
        case .scheduled(.day(let day)?):
            guard case .relative(let relative)? = record.definition.schedule,
                  let time = CivilTime(hour: relative.time.hour, minute: relative.time.minute)
            else { return nil }
            return zone.instant(for: LocalDateTime(date: day, time: time))
        case .countdown(let countdown):
            return countdown.fireDate
        case .scheduled(nil), .paused, .alerting:
            return nil
        }
    }

    private static func state(of phase: AlarmPhase) -> String {
        switch phase {
        case .scheduled: "scheduled"
        case .alerting: "alerting"
        case .countdown(let countdown): countdown.kind == .postAlert ? "snoozed" : "countdown"
        case .paused: "paused"
        }
    }

    private static func twoDigits(_ number: Int) -> String {
        number < 10 ? "0\(number)" : "\(number)"
    }
}
