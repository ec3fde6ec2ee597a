import AlarmKitCore
import AlarmModel
import FoundationEssentials

/// An alarm a journal entry removes, as the journal writes it: `{"owner":UID,"id":"UUID"}`.
///
/// Entries written while ids were unique on the device name the id alone (`"UUID"`): such a
/// removal has no owner, and applies to the one alarm that had the id then.
struct RemovedAlarm: Codable, Hashable, Sendable, Comparable {
    /// `nil` in an entry written while ids were unique on the device.
    var owner: ClientID?
    var id: Alarm.ID

    init(_ key: AlarmKey) {
        owner = key.owner
        id = key.id
    }

    /// By owner, then id: the same change is written as the same bytes.
    static func < (lhs: RemovedAlarm, rhs: RemovedAlarm) -> Bool {
        (lhs.owner?.rawValue ?? 0, lhs.id.uuidString) < (rhs.owner?.rawValue ?? 0, rhs.id.uuidString)
    }

    init(from decoder: any Decoder) throws {
        if let id = try? decoder.singleValueContainer().decode(Alarm.ID.self) {
            owner = nil
            self.id = id
            return
        }
        let key = try AlarmKey(from: decoder)
        owner = key.owner
        id = key.id
    }

    func encode(to encoder: any Encoder) throws {
        if let owner {
            try AlarmKey(owner: owner, id: id).encode(to: encoder)
        } else {
            var container = encoder.singleValueContainer()
            try container.encode(id)
        }
    }
}
