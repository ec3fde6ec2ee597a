import FoundationEssentials

/// A request line that parsed: its id, its operation, and its `params` still to be decoded into
/// the operation's own type with ``parameters(_:)``.
public struct ControlRequest: Sendable {
    /// The client's correlation id, repeated in the response.
    public var id: Int64
    /// The `op` field.
    public var operation: String
    /// The whole line, from which ``parameters(_:)`` decodes `params`.
    let line: Data
    let hasParameters: Bool

    /// Parses one line (without its newline). Pure and total: any bytes give a request or a
    /// ``ControlRequestError`` naming what is wrong, never a crash.
    ///
    /// Checks, in order: strict JSON in UTF-8 (``StrictJSON``; the refusal carries the request's
    /// `id` if the line has it before the fault), a JSON object, `v` (an integer; another version
    /// is `unsupportedVersion`), `id` (an integer), `op` (a string among `operations`: else
    /// `unknownOperation`), `params` (absent, `null` or an object). Other fields are ignored.
    public static func decode(line bytes: [UInt8], operations: Set<String> = ControlOperation.names)
        -> Result<ControlRequest, ControlRequestError>
    {
        if let violation = StrictJSON.validate(bytes) {
            // A validated integer's text is what `Int64` parses; a fraction or an exponent is not an id.
            let id = violation.completeTopLevelMembers["id"].flatMap { Int64(String(decoding: bytes[$0], as: UTF8.self)) }
            let what = violation.isEncoding ? "the request is not valid UTF-8" : "the request is not valid JSON"
            return .failure(ControlRequestError(id: id, .malformed, "\(what): \(violation)"))
        }
        let data = Data(bytes)
        let envelope: Envelope
        do {
            envelope = try ControlProtocol.makeDecoder().decode(Envelope.self, from: data)
        } catch let error as DecodingError {
            switch error {
            case .typeMismatch(_, let context) where context.codingPath.isEmpty,
                .valueNotFound(_, let context) where context.codingPath.isEmpty:
                return .failure(ControlRequestError(id: nil, .malformed, "a request must be a JSON object"))
            default:
                break
            }
            return .failure(ControlRequestError(id: nil, .malformed, "the request is not valid JSON: \(Self.summary(of: error))"))
        } catch {
            return .failure(ControlRequestError(id: nil, .malformed, "the request is not valid JSON"))
        }
        let id = envelope.id?.integerValue
        guard let version = envelope.version else {
            return .failure(ControlRequestError(id: id, .malformed, "the request has no protocol version \"v\""))
        }
        guard version.integerValue == Int64(ControlProtocol.version) else {
            guard version.integerValue != nil else {
                return .failure(ControlRequestError(id: id, .malformed, "\"v\" must be an integer, not \(version.kindName)"))
            }
            return .failure(ControlRequestError(
                id: id, .unsupportedVersion,
                "protocol version \(Self.text(of: version)) is not supported; this daemon speaks version \(ControlProtocol.version)"))
        }
        guard let requestID = envelope.id else {
            return .failure(ControlRequestError(id: nil, .malformed, "the request has no \"id\""))
        }
        guard let id = requestID.integerValue else {
            return .failure(ControlRequestError(
                id: nil, .malformed, "\"id\" must be an integer from \(Int64.min) to \(Int64.max), not \(Self.text(of: requestID))"))
        }
        guard let operationValue = envelope.operation else {
            return .failure(ControlRequestError(id: id, .malformed, "the request has no \"op\""))
        }
        guard let operation = operationValue.stringValue else {
            return .failure(ControlRequestError(id: id, .malformed, "\"op\" must be a string, not \(operationValue.kindName)"))
        }
        guard operations.contains(operation) else {
            return .failure(ControlRequestError(id: id, .unknownOperation, "unknown operation \"\(Self.clipped(operation))\""))
        }
        if envelope.parametersAreNotAnObject {
            return .failure(ControlRequestError(id: id, .malformed, "\"params\" must be an object"))
        }
        return .success(ControlRequest(
            id: id, operation: operation, line: data, hasParameters: envelope.hasParameters))
    }

    /// Decodes `params` as `P` (a missing or `null` `params` is decoded as `{}`).
    ///
    /// - Throws: ``ControlRequestError`` with code `malformed`, carrying this request's id and a
    ///   message naming the field: `params.definition.schedule is missing`.
    public func parameters<P: Decodable>(_ type: P.Type) throws(ControlRequestError) -> P {
        do {
            if hasParameters {
                return try ControlProtocol.makeDecoder().decode(ParametersEnvelope<P>.self, from: line).params
            }
            return try ControlProtocol.makeDecoder().decode(P.self, from: Data("{}".utf8))
        } catch let error as DecodingError {
            throw ControlRequestError(id: id, .malformed, "bad parameters: \(Self.summary(of: error, under: hasParameters ? [] : ["params"]))")
        } catch {
            throw ControlRequestError(id: id, .malformed, "bad parameters")
        }
    }

    // MARK: - Messages

    /// One line about a decoding error: the field's dotted path and what went wrong.
    package static func summary(of error: DecodingError, under prefix: [String] = []) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            var text = prefix.joined(separator: ".")
            for key in codingPath {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += (text.isEmpty ? "" : ".") + clipped(key.stringValue, to: 40)
                }
            }
            return text.isEmpty ? "the value" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing"
        case .valueNotFound(_, let context):
            return "\(path(context.codingPath)) must not be null"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) has the wrong type (expected \(Self.typeName(type)))"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(clipped(context.debugDescription))"
        @unknown default:
            return "undecodable"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Double.Type, is Int.Type, is Int64.Type, is UInt32.Type: "a number"
        default: "\(type)".contains("Dictionary") ? "an object" : "\(type)".contains("Array") ? "an array" : "\(type)"
        }
    }

    private static func text(of value: JSONValue) -> String {
        switch value {
        case .integer(let number): "\(number)"
        case .number(let number): "\(number)"
        case .string(let string): "\"\(clipped(string))\""
        default: value.kindName
        }
    }

    /// Client text echoed in a message is cut short: a message stays one readable line.
    package static func clipped(_ text: String, to length: Int = 80) -> String {
        let flat = text.map { $0.isNewline || $0.asciiValue.map { $0 < 0x20 } == true ? " " : String($0) }.joined()
        return flat.count <= length ? flat : String(flat.prefix(length)) + "…"
    }
}

/// Why a request line was refused, with the request's id when it could be read.
public struct ControlRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    public var id: Int64?
    public var code: ControlErrorCode
    public var message: String

    public init(id: Int64?, _ code: ControlErrorCode, _ message: String) {
        self.id = id
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) (\(code))" }
}

/// The envelope of a request: only the fields every request has. Unknown fields are ignored.
private struct Envelope: Decodable {
    var version: JSONValue?
    var id: JSONValue?
    var operation: JSONValue?
    var hasParameters = false
    var parametersAreNotAnObject = false

    private enum CodingKeys: String, CodingKey {
        case version = "v", id, operation = "op", params
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Fields of the wrong type are reported by the checks that follow, not as undecodable
        // JSON; present but null is null here, not missing.
        func field(_ key: CodingKeys) -> JSONValue? {
            container.contains(key) ? (try? container.decode(JSONValue.self, forKey: key)) : nil
        }
        version = field(.version)
        id = field(.id)
        operation = field(.operation)
        if container.contains(.params), !((try? container.decodeNil(forKey: .params)) ?? false) {
            hasParameters = true
            parametersAreNotAnObject = (try? container.nestedContainer(keyedBy: AnyKey.self, forKey: .params)) == nil
        }
    }
}

private struct ParametersEnvelope<P: Decodable>: Decodable {
    var params: P
}
