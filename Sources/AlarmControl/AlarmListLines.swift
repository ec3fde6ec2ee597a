import AlarmKitCore
import AlarmProtocol
import FoundationEssentials
import Synchronization

/// The `alarms` response, built from each alarm's JSON as the last list carried it: a client's
/// list of a thousand alarms is mostly unchanged ones, and `JSONEncoder` takes about 20 µs an
/// alarm on this class of machine (BENCHMARKS.md, control round trips). Each alarm is still
/// written by `JSONEncoder`; only the array and the envelope around them are joined here.
final class AlarmListLines: Sendable {
    /// Per client, each alarm listed last time with its JSON; an entry is used only while the
    /// alarm equals it, and a client's entries are replaced by every list, so removed alarms go.
    private let encoded = Mutex<[ClientID: [Alarm.ID: (alarm: Alarm, json: [UInt8])]]>([:])

    /// The success line answering request `id` with `alarms`, `owner`'s list; `nil` if an alarm
    /// cannot be encoded.
    func line(id: Int64, alarms: [Alarm], owner: ClientID) -> [UInt8]? {
        encoded.withLock { cache -> [UInt8]? in
            let previous = cache[owner] ?? [:]
            var current: [Alarm.ID: (alarm: Alarm, json: [UInt8])] = [:]
            let encoder = ControlProtocol.makeEncoder()
            var line = Array(#"{"v":\#(ControlProtocol.version),"id":\#(id),"ok":true,"result":["#.utf8)
            for (index, alarm) in alarms.enumerated() {
                let json: [UInt8]
                if let entry = previous[alarm.id], entry.alarm == alarm {
                    json = entry.json
                } else {
                    guard let encoded = try? encoder.encode(alarm) else { return nil }
                    json = Array(encoded)
                }
                current[alarm.id] = (alarm, json)
                if index > 0 { line.append(UInt8(ascii: ",")) }
                line += json
            }
            cache[owner] = current
            line += Array("]}\n".utf8)
            return line
        }
    }
}
