import AlarmKitCore
import FoundationEssentials

/// Something that happened to an alarm that a person would ask about afterwards.
public struct HistoryEntry: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Hashable, Sendable, CaseIterable {
        /// It started alerting.
        case rang
        /// Its secondary button started a countdown (a snooze).
        case snoozed
        /// Someone stopped it (a button, a client).
        case stopped
        /// It rang unanswered until the auto-silence limit.
        case autoSilenced
        /// It could not ring (the device was off, the clock jumped over it).
        case missed
        /// Its owner disabled it, enabled it (or undid a skip), or skipped its next occurrence:
        /// the device's extensions to AlarmKit (``AlarmCommand``).
        case disabled, enabled, skipped
        /// Its own sound could not play (missing, unreadable, undecodable) and the built-in
        /// tone rang in its place; ``HistoryEntry/detail`` names the file.
        case soundFailed
    }

    /// Why an alarm rang late or could not ring, when the clock knows.
    public enum Reason: String, Codable, Hashable, Sendable {
        /// The clock was set across its time: by hand, by a phone, or corrected by NTP.
        case clockSet
        /// alarmd was not running at its time (the device was off, or restarting).
        case notRunning
    }

    public var date: Date
    public var kind: Kind
    public var alarmID: Alarm.ID
    public var owner: ClientID
    public var title: String
    /// For `rang` more than a second after its time: how late, in seconds.
    public var lateBy: TimeInterval?
    /// For a late `rang` or a `missed`: why, when known.
    public var reason: Reason?
    /// For `soundFailed`: the sound that could not play.
    public var detail: String?

    public init(
        date: Date, kind: Kind, alarmID: Alarm.ID, owner: ClientID, title: String, lateBy: TimeInterval? = nil,
        reason: Reason? = nil, detail: String? = nil
    ) {
        self.date = date
        self.kind = kind
        self.alarmID = alarmID
        self.owner = owner
        self.title = title
        self.lateBy = lateBy
        self.reason = reason
        self.detail = detail
    }

    /// What a person reads beside the entry: "rang 10 min late: the clock was set", "the clock
    /// was off"; `nil` when there is nothing to say.
    public var explanation: String? {
        let why: String? = switch reason {
        case .clockSet?: kind == .missed ? "the clock was set past its time" : "the clock was set"
        case .notRunning?: "the clock was off or restarting"
        case nil: nil
        }
        switch kind {
        case .rang:
            guard let lateBy, lateBy >= 1 else { return why }
            let late = "\(Self.duration(lateBy)) late"
            return why.map { "\(late): \($0)" } ?? late
        case .missed:
            return why
        case .soundFailed:
            return "\(detail ?? "its sound") could not play: the built-in tone rang"
        default:
            return nil
        }
    }

    /// "45 s", "10 min", "2 h 5 min".
    static func duration(_ seconds: TimeInterval) -> String {
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        let minutes = whole / 60
        if minutes < 60 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }
}
