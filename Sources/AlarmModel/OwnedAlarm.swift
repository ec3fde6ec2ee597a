import AlarmKitCore

/// An alarm and the client it belongs to, in an administrator's `allAlarms`.
public struct OwnedAlarm: Codable, Hashable, Sendable {
    public var owner: ClientID
    public var alarm: Alarm

    public init(owner: ClientID, alarm: Alarm) {
        self.owner = owner
        self.alarm = alarm
    }
}
