import AlarmKitCore
import FoundationEssentials
import Testing

@testable import AlarmClient
@testable import AlarmControl
@testable import AlarmProtocol

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
        // Known: the operations the server serves (every operation of the protocol by default).
        #expect((try? decode(#"{"v":1,"id":3,"op":"status"}"#).get()) != nil)
        #expect((try? ControlRequest.decode(line: Array(#"{"v":1,"id":3,"op":"status"}"#.utf8), operations: ["hello"]).get()) == nil)
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

/// A request's parameters as the client writes them and the daemon reads them.
struct ControlRequestParametersTests {
    static let richDefinition = AlarmDefinition(
        schedule: .relative(.init(time: .init(hour: 6, minute: 30), repeats: .weekly([.monday, .friday]))),
        countdownDuration: .init(preAlert: 600, postAlert: 540.25),
        presentation: AlarmPresentation(
            alert: .init(title: "Réveil 🌅 \"hi\"\n", stopButton: .stop, secondaryButton: .snooze, secondaryButtonBehavior: .custom),
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

    @Test(arguments: [
        ControlRequestParametersTests.richDefinition,
        AlarmDefinition(schedule: .fixed(Date(timeIntervalSince1970: 1_772_431_230.5)), countdownDuration: nil, presentation: .init(alert: .init(title: "Once"))),
        AlarmDefinition(schedule: nil, countdownDuration: .init(preAlert: 300, postAlert: nil), presentation: .init(alert: .init(title: "Tea"))),
    ])
    func aScheduleReadsBackAsTheClientWroteIt(definition: AlarmDefinition) throws {
        let parameters = ScheduleParameters(id: Alarm.ID(), definition: definition)
        let request = try ControlRequest.decode(line: Self.line("schedule", parameters)).get()
        #expect(request.id == 7 && request.operation == "schedule")
        #expect(try request.parameters(ScheduleParameters.self) == parameters)
    }

    @Test func readsTheMembersInAnyOrderAndIgnoresUnknownOnes() throws {
        let id = Alarm.ID()
        let line = Array(#" { "params" : { "id" : "\#(id.uuidString.lowercased())", "x": 1 } , "op" : "stop", "future": [true], "id" : -3 , "v" : 1 } "#.utf8)
        let request = try ControlRequest.decode(line: line).get()
        #expect(request.id == -3 && request.operation == "stop")
        #expect(try request.parameters(AlarmIDParameters.self) == AlarmIDParameters(id: id))
        for text in [#"{"v":1,"id":1,"op":"alarms"}"#, #"{"v":1,"id":1,"op":"alarms","params":null}"#, #"{"v":1,"id":1,"op":"alarms","params":{}}"#] {
            let request = try ControlRequest.decode(line: Array(text.utf8)).get()
            #expect(request.operation == "alarms", "\(text)")
            _ = try request.parameters(NoParameters.self)
        }
    }
}
