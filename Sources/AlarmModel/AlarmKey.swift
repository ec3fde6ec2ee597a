import AlarmKitCore

/// An alarm's identity on the device: the client that owns it and the id that client gave it.
///
/// Ids are the client's own, as each app's are in AlarmKit: two clients may each have an alarm
/// with the same id, and neither can tell whether another client uses an id. The engine keys
/// everything it keeps per alarm by this; the AlarmKit API a client sees names its alarms by
/// `Alarm.ID` alone.
public struct AlarmKey: Hashable, Codable, Sendable, CustomStringConvertible {
    public var owner: ClientID
    public var id: Alarm.ID

    public init(owner: ClientID, id: Alarm.ID) {
        self.owner = owner
        self.id = id
    }

    public var description: String { "\(id) of \(owner)" }
}

extension AlarmRecord {
    public var key: AlarmKey { AlarmKey(owner: owner, id: id) }
}

extension MissedAlarm {
    public var key: AlarmKey { AlarmKey(owner: owner, id: alarmID) }
}
