import AlarmKitCore
import FoundationEssentials

@testable import AlarmClient
@testable import AlarmControl
import AlarmDaemon
@testable import AlarmProtocol

/// The `protocol` target: an input is the bytes a client sent (or the daemon, for the client's
/// side), decoded exactly as the server and `ControlClient` decode them.
///
/// Server: ``ControlLineDecoder`` with the 64 KiB limit, fed the input in pieces; each line
/// through ``ControlRequest/decode(line:operations:)``, which refuses every line ``StrictJSON``
/// refuses (and `JSONDecoder` parses every line it accepts); each request's parameters decoded as
/// `ControlSession.perform` decodes them for its operation (and a schedule validated). Client:
/// the same bytes as lines from the daemon, routed (`IncomingEnvelope`) and
/// decoded as events or results. See ``ProtocolFuzzing/checkClientLine(_:random:)``.
enum ProtocolFuzzing {
    /// The operations `alarmd` answers: the protocol's and the daemon's own handlers.
    static let operations = ControlOperation.names

    static func run(_ bytes: [UInt8]) {
        var random = FuzzRandom(seed: bytes)
        let requestLines = LineSplitting.split(bytes, pieces: random.chunks(of: bytes), limit: ControlProtocol.maximumRequestSize)
        // A small limit reaches the tooLarge paths with inputs of a few bytes.
        _ = LineSplitting.split(bytes, pieces: random.chunks(of: bytes), limit: random.next(in: 1...80))
        for case .line(let line) in requestLines {
            checkRequestLine(line)
        }
        let responseLines = LineSplitting.split(bytes, pieces: random.chunks(of: bytes), limit: ControlProtocol.maximumResponseSize)
        for case .line(let line) in responseLines {
            checkClientLine(line, random: &random)
        }
    }

    // MARK: - The server's side

    /// One request line as `ServerLoop.handle` and `ControlSession.perform` take it.
    static func checkRequestLine(_ line: [UInt8]) {
        let isStrictJSON = checkStrictness(line)
        switch ControlRequest.decode(line: line, operations: operations) {
        case .failure(let error):
            checkRefusal(error)
            if !isStrictJSON {
                fuzzCheck(error.code == .malformed, "a line that is not strict JSON is refused as \(error.code), not malformed")
            }
        case .success(let request):
            fuzzCheck(isStrictJSON, "accepted a line that is not strict JSON: \(String(decoding: line.prefix(200), as: UTF8.self).debugDescription)")
            fuzzCheck(operations.contains(request.operation), "accepted an unknown operation \"\(request.operation)\"")
            do {
                try decodeParameters(request)
            } catch let error as ControlRequestError {
                fuzzCheck(error.code == .malformed, "bad parameters give malformed, not \(error.code)")
                fuzzCheck(error.id == request.id, "the refusal of parameters carries id \(error.id.map { "\($0)" } ?? "nil"), not \(request.id)")
                checkRefusal(error)
            } catch {
                // A definition that decoded but is invalid: sent as the handler's error.
                let body = ControlErrorBody(error)
                fuzzCheck(body.code == .invalidConfiguration, "a refused definition gives invalidConfiguration, not \(body.code): \(error)")
                checkOneLine(body.message, "the refusal of a definition")
                fuzzCheck(ControlProtocol.line(FailureMessage(id: request.id, error: body)) != nil, "the refusal cannot be encoded")
            }
        }
    }

    /// Whether ``StrictJSON`` accepts `line`; what it accepts, `JSONDecoder` parses too (it is
    /// the more lenient of the two, so the strict check never refuses what decoding relies on).
    static func checkStrictness(_ line: [UInt8]) -> Bool {
        guard StrictJSON.validate(line) == nil else { return false }
        let parsed = (try? JSONDecoder().decode(ParsedByJSONDecoder.self, from: Data(line))) != nil
        fuzzCheck(parsed, "JSONDecoder cannot parse a line StrictJSON accepts: \(String(decoding: line.prefix(200), as: UTF8.self).debugDescription)")
        return true
    }

    /// Decodes `request`'s parameters as the server does for its operation.
    ///
    /// - Throws: ``ControlRequestError`` for parameters of the wrong shape, or the
    ///   ``AlarmOperationError`` of ``AlarmDefinition/validate()``.
    static func decodeParameters(_ request: ControlRequest) throws {
        guard let operation = ControlOperation(rawValue: request.operation) else { return }
        guard operation == .schedule else {
            _ = try request.parameters(operation.endpoint.parametersType)
            return
        }
        let parameters = try request.parameters(ScheduleParameters.self)
        try parameters.definition.validate()
        checkScheduleRoundTrip(parameters, id: request.id)
    }

    /// What the server accepted, a client can send again: the definition the engine stores and
    /// lists must encode, and decode and validate once more.
    static func checkScheduleRoundTrip(_ parameters: ScheduleParameters, id: Int64) {
        guard let line = ControlProtocol.line(RequestMessage(id: id, op: ControlOperation.schedule.name, params: parameters)) else {
            return fuzzCheck(false, "an accepted definition cannot be encoded: \(parameters.definition)")
        }
        switch ControlRequest.decode(line: Array(line.dropLast()), operations: operations) {
        case .failure(let error):
            fuzzCheck(false, "an accepted schedule, encoded again, is refused: \(error)")
        case .success(let again):
            do {
                let decoded = try again.parameters(ScheduleParameters.self)
                try decoded.definition.validate()
                fuzzCheck(decoded.id == parameters.id, "the alarm id changed in a round trip")
            } catch {
                fuzzCheck(false, "an accepted schedule, encoded again, is refused: \(error)")
            }
        }
    }

    /// A refusal is one line and can be sent.
    static func checkRefusal(_ error: ControlRequestError) {
        checkOneLine(error.message, "a refusal (\(error.code))")
        let body = ControlErrorBody(code: error.code, message: error.message)
        fuzzCheck(ControlProtocol.line(FailureMessage(id: error.id, error: body)) != nil, "a refusal cannot be encoded: \(error)")
    }

    static func checkOneLine(_ message: String, _ what: @autoclosure () -> String) {
        fuzzCheck(!message.isEmpty, "\(what()) has an empty message")
        fuzzCheck(!message.contains(where: \.isNewline), "\(what()) is not one line: \(message.debugDescription)")
    }
}

/// Any JSON text: decoding it converts no value, so it succeeds exactly when `JSONDecoder` can
/// parse the text.
struct ParsedByJSONDecoder: Decodable {
    init(from decoder: any Decoder) throws {}
}
