import AlarmKitCore
import AlarmProtocol
import FoundationEssentials
import Synchronization

/// The `alarms` response's elements, built from each alarm's JSON as the last list carried it: a
/// client's list of a thousand alarms is mostly unchanged ones, and `JSONEncoder` takes about
/// 20 µs an alarm on this class of machine (BENCHMARKS.md, control round trips). Each alarm is
/// still written by `JSONEncoder`; the session joins them into the response as the socket drains.
final class AlarmListLines: Sendable {
    /// Per client, each alarm listed last time with its JSON; an entry is used only while the
    /// alarm equals it, and a client's entries are replaced by every list, so removed alarms go.
    private let encoded = Mutex<[ClientID: [Alarm.ID: (alarm: Alarm, json: [UInt8])]]>([:])

    /// The JSON of each of `alarms`, `owner`'s list, in order; `nil` if an alarm cannot be
    /// encoded.
    func elements(_ alarms: [Alarm], owner: ClientID) -> [[UInt8]]? {
        encoded.withLock { cache -> [[UInt8]]? in
            let previous = cache[owner] ?? [:]
            var current: [Alarm.ID: (alarm: Alarm, json: [UInt8])] = [:]
            let encoder = ControlProtocol.makeEncoder()
            var elements: [[UInt8]] = []
            elements.reserveCapacity(alarms.count)
            for alarm in alarms {
                let json: [UInt8]
                if let entry = previous[alarm.id], entry.alarm == alarm {
                    json = entry.json
                } else {
                    guard let encoded = try? encoder.encode(alarm) else { return nil }
                    json = Array(encoded)
                }
                current[alarm.id] = (alarm, json)
                elements.append(json)
            }
            cache[owner] = current
            return elements
        }
    }
}
