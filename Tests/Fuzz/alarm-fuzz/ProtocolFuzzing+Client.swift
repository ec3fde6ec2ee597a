import AlarmEngine
import AlarmKitCore
import AlarmModel
import FoundationEssentials

@testable import AlarmClient
@testable import AlarmControl
@testable import AlarmProtocol

extension ProtocolFuzzing {
    /// One line from the daemon, as `ControlChannel.dispatch` routes it (if it is strict JSON)
    /// and `ControlClient` decodes it.
    static func checkClientLine(_ line: [UInt8], random: inout FuzzRandom) {
        // The channel closes the connection on a line that is not strict JSON, before routing it.
        guard checkStrictness(line) else { return }
        let data = Data(line)
        let decoded = try? ControlProtocol.makeDecoder().decode(IncomingEnvelope.self, from: data)
        guard let decoded else {
            // Not a message: each request's result decoding refuses it the same way.
            _ = result(of: line, as: JSONValue.self)
            return
        }
        if decoded.event != nil {
            // Events, as the client's streams decode them.
            _ = try? ControlProtocol.makeDecoder().decode(EventEnvelope<[Alarm]>.self, from: data)
            _ = try? ControlProtocol.makeDecoder().decode(EventEnvelope<AlarmManager.AuthorizationState>.self, from: data)
            return
        }
        if decoded.ok != true {
            // A refusal: the error the client rebuilds from its body.
            _ = result(of: line, as: JSONValue.self)
            return
        }
        // The subscription a response opens, as dispatch records its route.
        _ = try? ControlProtocol.makeDecoder().decode(ResultEnvelope<ControlSubscription>.self, from: data)
        // A result, as two of the client's requests (chosen from the input) read it: all of them
        // for every line would slow the target several times over.
        for _ in 0..<2 {
            switch random.next(in: 0...9) {
            case 0:
                if let value = result(of: line, as: JSONValue.self) {
                    // alarmctl re-encodes a JSON result to decode it as its own type, or to print it.
                    fuzzCheck((try? JSONEncoder().encode(value)) != nil, "a JSON result cannot be encoded again: \(value)")
                }
            case 1: _ = result(of: line, as: [Alarm].self)
            case 2: _ = result(of: line, as: Alarm.self)
            case 3: _ = result(of: line, as: ControlHello.self)
            case 4: _ = result(of: line, as: AlarmManager.AuthorizationState.self)
            case 5: _ = result(of: line, as: [OwnedAlarm].self)
            case 6: _ = result(of: line, as: [ClientAuthorization].self)
            case 7: _ = result(of: line, as: [AlarmRecord].self)
            case 8: _ = result(of: line, as: [HistoryEntry].self)
            default: _ = result(of: line, as: StatusReport.self)
            }
        }
    }

    /// `ControlClient.result(of:as:operation:)`: the result, or `nil` for the error it throws
    /// (which must have a message: it is what `alarmctl` prints).
    private static func result<Result: Decodable>(of line: [UInt8], as type: Result.Type) -> Result? {
        do {
            return try ControlClient.result(of: line, as: type, operation: "fuzz")
        } catch {
            fuzzCheck(!"\(error)".isEmpty, "an empty error for a response")
            return nil
        }
    }
}
