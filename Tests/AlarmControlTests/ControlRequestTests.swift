import AlarmKit
import FoundationEssentials
import Testing

@testable import AlarmControl

struct ControlRequestTests {
    private func decode(_ text: String) -> Result<ControlRequest, ControlRequestError> {
        ControlRequest.decode(line: Array(text.utf8))
    }

    private func failure(_ text: String) -> ControlRequestError? {
        if case .failure(let error) = decode(text) { return error }
        return nil
    }

    @Test func parsesARequestAndIgnoresUnknownFields() throws {
        let request = try decode(#"{"v":1,"id":42,"op":"alarms","future":{"x":[1,2]},"params":{"later":true}}"#).get()
        #expect(request.id == 42)
        #expect(request.operation == "alarms")
        _ = try request.parameters(NoParameters.self)
    }

    @Test func acceptsMissingOrNullParameters() throws {
        _ = try decode(#"{"v":1,"id":1,"op":"hello"}"#).get().parameters(NoParameters.self)
        _ = try decode(#"{"v":1,"id":1,"op":"hello","params":null}"#).get().parameters(NoParameters.self)
    }

    @Test(arguments: [
        (#"{"v":1,"id":1,"op":"hello""#, "not valid JSON"),
        ("{", "not valid JSON"),
        ("", "not valid JSON"),
        ("   ", "not valid JSON"),
        ("[1,2]", "must be a JSON object"),
        (#""hello""#, "must be a JSON object"),
        ("3", "must be a JSON object"),
        ("null", "must be a JSON object"),
        (#"{"id":1,"op":"hello"}"#, "no protocol version"),
        (#"{"v":"1","id":1,"op":"hello"}"#, "\"v\" must be an integer"),
        (#"{"v":1,"op":"hello"}"#, "has no \"id\""),
        (#"{"v":1,"id":"7","op":"hello"}"#, "\"id\" must be an integer"),
        (#"{"v":1,"id":1.5,"op":"hello"}"#, "\"id\" must be an integer"),
        (#"{"v":1,"id":99999999999999999999,"op":"hello"}"#, "\"id\" must be an integer"),
        (#"{"v":1,"id":null,"op":"hello"}"#, "\"id\" must be an integer"),
        (#"{"v":1,"id":1}"#, "has no \"op\""),
        (#"{"v":1,"id":1,"op":5}"#, "\"op\" must be a string"),
        (#"{"v":1,"id":1,"op":"hello","params":[]}"#, "\"params\" must be an object"),
        (#"{"v":1,"id":1,"op":"hello","params":"x"}"#, "\"params\" must be an object"),
        (#"{"v":1,"id":1e400,"op":"hello"}"#, ""),
    ])
    func refusesMalformedRequests(text: String, message: String) {
        let error = failure(text)
        #expect(error?.code == .malformed, "\(text)")
        #expect(error?.message.contains(message) == true, "\(text): \(error?.message ?? "accepted")")
    }

    @Test func refusesInvalidUTF8() {
        let error = ControlRequest.decode(line: [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D]).failure
        #expect(error?.code == .malformed)
        #expect(error?.message == "the request is not valid UTF-8: invalid UTF-8 at byte 2")
    }

    @Test func refusesAnotherVersionWithTheRequestsID() {
        let error = failure(#"{"v":2,"id":9,"op":"hello"}"#)
        #expect(error?.code == .unsupportedVersion)
        #expect(error?.id == 9)
        #expect(error?.message == "protocol version 2 is not supported; this daemon speaks version 1")
        // Even a request that would be malformed in version 1: the version decides first.
        #expect(failure(#"{"v":0}"#)?.code == .unsupportedVersion)
    }

    @Test func refusesAnUnknownOperationWithTheRequestsID() {
        let error = failure(#"{"v":1,"id":3,"op":"selfDestruct"}"#)
        #expect(error?.code == .unknownOperation)
        #expect(error?.id == 3)
        #expect(error?.message == "unknown operation \"selfDestruct\"")
        // Operations registered by the daemon are known.
        #expect((try? decode(#"{"v":1,"id":3,"op":"status"}"#).get()) == nil)
        #expect((try? ControlRequest.decode(line: Array(#"{"v":1,"id":3,"op":"status"}"#.utf8), operations: ["status"]).get()) != nil)
    }

    @Test func namesTheBadParameter() throws {
        let missing = try decode(#"{"v":1,"id":4,"op":"schedule","params":{"id":"6F0C9A3B-1A2B-4C5D-8E9F-0A1B2C3D4E5F"}}"#).get()
        #expect(throws: ControlRequestError(id: 4, .malformed, "bad parameters: params.definition is missing")) {
            try missing.parameters(ScheduleParameters.self)
        }
        let wrongType = try decode(#"{"v":1,"id":5,"op":"stop","params":{"id":17}}"#).get()
        #expect(throws: ControlRequestError(id: 5, .malformed, "bad parameters: params.id has the wrong type (expected a string)")) {
            try wrongType.parameters(AlarmIDParameters.self)
        }
        let badUUID = try decode(#"{"v":1,"id":6,"op":"stop","params":{"id":"not-a-uuid"}}"#).get()
        #expect(throws: ControlRequestError.self) { try badUUID.parameters(AlarmIDParameters.self) }
        let none = try decode(#"{"v":1,"id":7,"op":"stop"}"#).get()
        #expect(throws: ControlRequestError(id: 7, .malformed, "bad parameters: params.id is missing")) {
            try none.parameters(AlarmIDParameters.self)
        }
        let nested = try decode(#"{"v":1,"id":8,"op":"schedule","params":{"id":"6F0C9A3B-1A2B-4C5D-8E9F-0A1B2C3D4E5F","definition":{"presentation":{"alert":{"title":5}}}}}"#).get()
        let error = #expect(throws: ControlRequestError.self) { try nested.parameters(ScheduleParameters.self) }
        #expect(error?.message.hasPrefix("bad parameters: params.definition.") == true, "\(error?.message ?? "")")
    }

    @Test func survivesDeepNestingAndHugeNumbers() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(failure(#"{"v":1,"id":1,"op":"hello","params":{"x":"# + deep + "}}")?.code == .malformed)
        #expect(failure(String(repeating: "{\"a\":", count: 20_000))?.code == .malformed)
        let huge = try? decode(#"{"v":1,"id":1,"op":"stop","params":{"id":1e99999}}"#).get()
        #expect(throws: ControlRequestError.self) { try huge?.parameters(AlarmIDParameters.self) }
        let hugeNumbers = try? decode(#"{"v":1,"id":2,"op":"setAuthorization","params":{"uid":4294967296,"state":"denied"}}"#).get()
        #expect(throws: ControlRequestError.self) { try hugeNumbers?.parameters(SetAuthorizationParameters.self) }
    }

    @Test func everyAlarmOperationErrorSurvivesTheWire() throws {
        let id = Alarm.ID()
        let errors: [AlarmOperationError] = [
            .notFound(id), .invalidTransition(id, action: .pause, from: .alerting), .noCountdownDuration(id),
            .duplicateID(id), .invalidConfiguration("schedule hour 25 is not in 0...23"), .notAuthorized(.denied),
            .storageFailure("disk full"), .serviceUnavailable("restarting"),
        ]
        for error in errors {
            let data = try JSONEncoder().encode(ControlErrorBody(error))
            let body = try JSONDecoder().decode(ControlErrorBody.self, from: data)
            #expect(body.error as? AlarmOperationError == error)
            #expect(body.message == error.description)
        }
        let limit = ControlErrorBody(AlarmManager.AlarmError.maximumLimitReached)
        #expect(limit.code == .maximumLimitReached)
        #expect(limit.error as? AlarmManager.AlarmError == .maximumLimitReached)
        let unknown = ControlErrorBody(code: ControlErrorCode(rawValue: "fromTheFuture"), message: "new")
        #expect(unknown.error as? ControlError == ControlError(ControlErrorCode(rawValue: "fromTheFuture"), "new"))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// ``ControlRequestReader``, the fast path of ``ControlRequest/decode(line:operations:)``: what it
/// reads equals what `JSONDecoder` reads, and it leaves every line it is not sure of.
struct ControlRequestReaderTests {
    static let richDefinition = AlarmDefinition(
        schedule: .relative(.init(time: .init(hour: 6, minute: 30), repeats: .weekly([.monday, .friday]))),
        countdownDuration: .init(preAlert: 600, postAlert: 540.25),
        presentation: AlarmPresentation(
            alert: .init(title: "Réveil 🌅", stopButton: .stop, secondaryButton: .snooze, secondaryButtonBehavior: .custom),
            countdown: .init(title: "Bientôt", pauseButton: .pause),
            paused: .init(title: "Pause", resumeButton: .resume)),
        tintColor: Color(red: 0.1, green: 0.2, blue: 0.3),
        metadata: Data(#"{"dose":2}"#.utf8),
        stopIntent: AlarmIntent("open", parameters: ["url": "https://example.org/x?y=z", "mode": "quiet"]),
        secondaryIntent: AlarmIntent("log"),
        sound: .named("birds.wav"))

    /// A request line as ``ControlClient`` writes it, without its newline.
    static func line<P: Encodable>(_ operation: String, _ parameters: P, id: Int64 = 7) -> [UInt8] {
        Array(ControlProtocol.line(RequestMessage(id: id, op: operation, params: parameters))!.dropLast())
    }

    /// The request `JSONDecoder` makes of `line`.
    static func authority(_ line: [UInt8]) throws -> ControlRequest {
        try ControlRequest.decodeWithJSONDecoder(Data(line), operations: ControlOperationName.builtIn).get()
    }

    @Test(arguments: [
        ControlRequestReaderTests.richDefinition,
        AlarmDefinition(schedule: .fixed(Date(timeIntervalSince1970: 1_772_431_230.5)), countdownDuration: nil, presentation: .init(alert: .init(title: "Once"))),
        AlarmDefinition(schedule: nil, countdownDuration: .init(preAlert: 300, postAlert: nil), presentation: .init(alert: .init(title: "Tea"))),
    ])
    func readsAScheduleAsJSONDecoderDoes(definition: AlarmDefinition) throws {
        let line = Self.line("schedule", ScheduleParameters(id: Alarm.ID(), definition: definition))
        let read = try #require(ControlRequestReader.read(line, operations: ControlOperationName.builtIn))
        let authority = try Self.authority(line)
        #expect(read.id == authority.id && read.operation == authority.operation && read.hasParameters)
        #expect(read.parameters as? ScheduleParameters == (try authority.parameters(ScheduleParameters.self)))
        // And through decode, the parameters are the ones read.
        let request = try ControlRequest.decode(line: line).get()
        #expect(request.readParameters != nil)
        #expect(try request.parameters(ScheduleParameters.self) == authority.parameters(ScheduleParameters.self))
    }

    @Test func readsTheMembersInAnyOrderAndAnAlarmActionsID() throws {
        let id = Alarm.ID()
        let line = Array(#" { "params" : { "id" : "\#(id.uuidString.lowercased())" } , "op" : "stop", "id" : -3 , "v" : 1 } "#.utf8)
        let read = try #require(ControlRequestReader.read(line, operations: ControlOperationName.builtIn))
        #expect(read.id == -3 && read.operation == "stop")
        #expect(read.parameters as? AlarmIDParameters == AlarmIDParameters(id: id))
        for text in [#"{"v":1,"id":1,"op":"alarms"}"#, #"{"v":1,"id":1,"op":"alarms","params":null}"#, #"{"v":1,"id":1,"op":"alarms","params":{}}"#] {
            let read = try #require(ControlRequestReader.read(Array(text.utf8), operations: ControlOperationName.builtIn), "\(text)")
            let authority = try Self.authority(Array(text.utf8))
            #expect(read.hasParameters == authority.hasParameters && read.parameters == nil, "\(text)")
        }
    }

    @Test(arguments: [
        // Members it does not know, or twice: JSONDecoder ignores the one and keeps the first of the other.
        #"{"v":1,"id":1,"op":"alarms","future":true}"#,
        #"{"v":1,"id":1,"id":2,"op":"alarms"}"#,
        #"{"v":1,"id":1,"op":"stop","params":{"id":"6F0C8E2A-1B7D-4C1E-9F3A-2D5B7C9E1F00","x":1}}"#,
        // Escapes, numbers it leaves, parameters of operations it does not read.
        #"{"v":1,"id":1,"op":"st\u006fp","params":{"id":"6F0C8E2A-1B7D-4C1E-9F3A-2D5B7C9E1F00"}}"#,
        #"{"v":1,"id":1.0,"op":"alarms"}"#,
        #"{"v":1,"id":1234567890123456789,"op":"alarms"}"#,
        #"{"v":1,"id":1,"op":"unsubscribe","params":{"subscription":2}}"#,
        // What JSONDecoder refuses, inside the parameters it skipped first.
        #"{"v":1,"id":1,"op":"stop","params":{"id":"6F0C8E2A-1B7D-4C1E-9F3A-2D5B7C9E1F00",}}"#,
        #"{"v":1,"id":1,"op":"stop","params":{"id":"6F0C8E2A-1B7D-4C1E-9F3A-2D5B7C9E1F00"]}"#,
        #"{"params":{"id":"6F0C8E2A-1B7D-4C1E-9F3A-2D5B7C9E1F00"},"v":1,"id":1,"op":"stop""#,
        #"{"v":2,"id":1,"op":"alarms"}"#,
        #"{"v":1,"id":1,"op":"selfDestruct"}"#,
    ])
    func leavesToJSONDecoderWhatItIsNotSureOf(text: String) {
        #expect(ControlRequestReader.read(Array(text.utf8), operations: ControlOperationName.builtIn) == nil)
    }

    @Test func aScheduleWithAnEscapedTitleOrAnUnknownMemberIsLeftWhole() throws {
        var definition = Self.richDefinition
        definition.presentation.alert.title = "Say \"hi\"\n"
        let escaped = Self.line("schedule", ScheduleParameters(id: Alarm.ID(), definition: definition))
        #expect(ControlRequestReader.read(escaped, operations: ControlOperationName.builtIn) == nil)
        #expect(try ControlRequest.decode(line: escaped).get().parameters(ScheduleParameters.self).definition == definition)
    }
}
