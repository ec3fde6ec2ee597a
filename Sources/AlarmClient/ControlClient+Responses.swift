import AlarmKitCore
import AlarmModel
import AlarmProtocol
import FoundationEssentials
import LinuxSupport
import Synchronization

// Reading alarmd's answers: the one decoding of a response line every request and stream uses.
extension ControlClient {
    static func result<Result: Decodable>(of line: [UInt8], as type: Result.Type, operation: String) throws -> Result {
        let decoder = ControlProtocol.makeDecoder()
        let data = Data(line)
        // One parse of the whole line: a list of alarms is most of it.
        let response: ResponseEnvelope<Result>
        do {
            response = try decoder.decode(ResponseEnvelope<Result>.self, from: data)
        } catch let error as DecodingError {
            guard let envelope = try? decoder.decode(IncomingEnvelope.self, from: data) else {
                throw ControlError(.malformed, "alarmd's response to \(operation) is not a response")
            }
            if envelope.ok != true, let failure = envelope.error { throw failure.error }
            throw ControlError(.malformed, "alarmd's result of \(operation) is unexpected: \(ControlRequest.summary(of: error))")
        }
        guard response.ok == true else {
            throw (response.error ?? ControlErrorBody(code: .malformed, message: "alarmd's response to \(operation) has no error")).error
        }
        if let result = response.result { return result }
        // A `null` result (an operation that returns nothing) decodes as the type itself.
        do {
            return try decoder.decode(ResultEnvelope<Result>.self, from: data).result
        } catch let error as DecodingError {
            throw ControlError(.malformed, "alarmd's result of \(operation) is unexpected: \(ControlRequest.summary(of: error))")
        }
    }

    /// The daemon's answer to `hello`, if it speaks this client's protocol version.
    static func hello(from line: [UInt8]) throws -> ControlHello {
        let hello = try result(of: line, as: ControlHello.self, operation: ControlOperation.hello.name)
        guard hello.protocol == ControlProtocol.version else {
            throw ControlError(
                .unsupportedVersion, "alarmd speaks protocol version \(hello.protocol); this client speaks \(ControlProtocol.version)")
        }
        return hello
    }
}
