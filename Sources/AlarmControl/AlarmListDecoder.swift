import AlarmKit
import FoundationEssentials

/// Decodes the lines that carry alarms (the `alarms` and `schedule` responses, the `alarms`
/// events) straight from their bytes, without `JSONDecoder`.
///
/// `JSONDecoder` took about 2.4 ms for a list of 100 alarms, more than the whole round trip may
/// take; this takes 0.1 to 0.2 ms (`alarm-benchmarks --only daemon`, which is why it is `package`).
/// It reads only the shape ``ControlProtocol``'s encoder writes: the synthesized `Codable`
/// form of ``Alarm`` (`{"fixed":{"_0":…}}`, `{"never":{}}`, `{"weekly":{"_0":["mon",…]}}`, dates
/// as seconds since 1970, `nil` optionals left out or `null`), keys in any order, JSON whitespace
/// between tokens.
///
/// ```swift
/// let alarms = AlarmListDecoder.alarms(inResponse: line)
///     ?? (try ControlClient.result(of: line, as: [Alarm].self, operation: "alarms"))
/// ```
///
/// - Important: `nil` means "not read here", never "invalid": the caller decodes the line with
///   `JSONDecoder`, which stays the authority and reports the errors. Anything unexpected gives
///   `nil`: an error response, a `false` or missing `ok`, an unknown or repeated key, an escape
///   or a non-ASCII byte in a string, a number with a fraction where an integer belongs, a
///   number `JSONDecoder` would refuse or round to zero. Whatever it returns equals, to the bit,
///   what `JSONDecoder` returns for the same line; it never traps, whatever the bytes.
package enum AlarmListDecoder {
    /// The `[Alarm]` of a successful response (`{"v":1,"id":7,"ok":true,"result":[…]}`).
    package static func alarms(inResponse line: [UInt8]) -> [Alarm]? {
        var reader = AlarmJSONReader(line)
        return reader.readWholeLine { $0.readResponse { $0.readAlarms() } }
    }

    /// The `Alarm` of a successful response (`schedule`'s).
    package static func alarm(inResponse line: [UInt8]) -> Alarm? {
        var reader = AlarmJSONReader(line)
        return reader.readWholeLine { $0.readResponse { $0.readAlarm() } }
    }

    /// The `[Alarm]` of an event (`{"v":1,"event":"alarms","subscription":2,"data":[…]}`).
    package static func alarms(inEvent line: [UInt8]) -> [Alarm]? {
        var reader = AlarmJSONReader(line)
        return reader.readWholeLine { $0.readEvent { $0.readAlarms() } }
    }
}
