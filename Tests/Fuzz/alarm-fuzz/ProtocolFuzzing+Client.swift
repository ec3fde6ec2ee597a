import AlarmEngine
import AlarmKit
import FoundationEssentials

@testable import AlarmControl

extension ProtocolFuzzing {
    /// One line from the daemon, as `ControlChannel.dispatch` routes it (if it is strict JSON)
    /// and `ControlClient` decodes it.
    ///
    /// Invariant: when the channel would route by ``EnvelopeScanner``'s reading and `JSONDecoder`
    /// decodes the line as `IncomingEnvelope`, both agree on `id`, `ok` and `subscription`, and a
    /// line with an `event` string is an event to both: the scanner is a shortcut, never another
    /// reading of the line.
    static func checkClientLine(_ line: [UInt8], random: inout FuzzRandom) {
        // The channel closes the connection on a line that is not strict JSON, before routing it.
        guard checkStrictness(line) else { return }
        let data = Data(line)
        let scanned = EnvelopeScanner.scan(line)
        let decoded = try? ControlProtocol.makeDecoder().decode(IncomingEnvelope.self, from: data)
        // ControlChannel.dispatch routes by the scanner's fields unless they read as a refusal
        // without an id; then it decodes the line in full.
        if let scanned, scanned.id != nil || scanned.ok != false, let decoded {
            let text = String(decoding: line.prefix(200), as: UTF8.self).debugDescription
            fuzzCheck(scanned.id == decoded.id, "scanner id \(describe(scanned.id)), decoder \(describe(decoded.id)): \(text)")
            fuzzCheck(scanned.ok == decoded.ok, "scanner ok \(describe(scanned.ok)), decoder \(describe(decoded.ok)): \(text)")
            fuzzCheck(
                scanned.subscription == decoded.subscription,
                "scanner subscription \(describe(scanned.subscription)), decoder \(describe(decoded.subscription)): \(text)")
            fuzzCheck(decoded.event == nil || scanned.isEvent, "the decoder reads an event, the scanner a response: \(text)")
        }
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

    private static func describe<Value>(_ value: Value?) -> String {
        value.map { "\($0)" } ?? "nil"
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
