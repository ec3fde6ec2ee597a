import AlarmKitCore
import AlarmModel
import AlarmProtocol
import FoundationEssentials
import Synchronization

/// The `alarms` response's result, built from each alarm's JSON as the last list carried it: a
/// client's list of a thousand alarms is mostly unchanged ones, and `JSONEncoder` takes about
/// 20 µs an alarm on this class of machine (BENCHMARKS.md, control round trips). Each alarm is
/// still written by `JSONEncoder`; only the array around them is joined here.
///
/// The array is built whole, not streamed as records are: an `Alarm` carries no text of the
/// client's, so a list is at most a few hundred bytes an alarm, and joining it in one pass costs
/// the daemon less than handing it over alarm by alarm.
final class AlarmListLines: Sendable {
    /// Per client, each alarm listed last time with its JSON; an entry is used only while the
    /// alarm equals it, and a client's entries are replaced by every list, so removed alarms go.
    private let encoded = Mutex<[ClientID: [Alarm.ID: (alarm: Alarm, json: [UInt8])]]>([:])

    /// The JSON array of `alarms`, `owner`'s list; `nil` if an alarm cannot be encoded.
    func array(_ alarms: [Alarm], owner: ClientID) -> [UInt8]? {
        encoded.withLock { cache -> [UInt8]? in
            let previous = cache[owner] ?? [:]
            var current: [Alarm.ID: (alarm: Alarm, json: [UInt8])] = [:]
            let encoder = ControlProtocol.makeEncoder()
            var array: [UInt8] = [UInt8(ascii: "[")]
            for (index, alarm) in alarms.enumerated() {
                let json: [UInt8]
                if let entry = previous[alarm.id], entry.alarm == alarm {
                    json = entry.json
                } else {
                    guard let encoded = try? encoder.encode(alarm) else { return nil }
                    json = Array(encoded)
                }
                current[alarm.id] = (alarm, json)
                if index > 0 { array.append(UInt8(ascii: ",")) }
                array += json
            }
            cache[owner] = current
            array.append(UInt8(ascii: "]"))
            return array
        }
    }
}
