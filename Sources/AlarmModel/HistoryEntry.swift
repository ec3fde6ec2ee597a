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
    }

    public var date: Date
    public var kind: Kind
    public var alarmID: Alarm.ID
    public var owner: ClientID
    public var title: String

    public init(date: Date, kind: Kind, alarmID: Alarm.ID, owner: ClientID, title: String) {
        self.date = date
        self.kind = kind
        self.alarmID = alarmID
        self.owner = owner
        self.title = title
    }
}
