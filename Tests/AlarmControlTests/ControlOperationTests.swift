import AlarmKitCore
import AlarmModel
import AlarmProtocol
import FoundationEssentials
import Testing

/// The one list of operations: each case's endpoint is its own, and the daemon's operations'
/// answers are the JSON the hand-built ones were (members in any order, as JSONEncoder writes them).
struct ControlOperationTests {
    @Test func everyOperationsEndpointIsItsOwn() {
        for operation in ControlOperation.allCases {
            #expect(operation.endpoint.operation == operation)
            #expect(ControlOperation(rawValue: operation.name) == operation)
        }
        #expect(ControlOperation.names.count == ControlOperation.allCases.count)
        for command in AlarmCommand.allCases { #expect(ControlOperation(command).name == command.rawValue) }
    }

    @Test func onlyTheAdministratorsOperationsAreForAdministrators() {
        let administrators = ControlOperation.allCases.filter(\.requiresAdministrator).map(\.name)
        #expect(Set(administrators) == [
            "subscribeDevice", "allAlarms", "authorizations", "setAuthorization",
            "setSettings", "trySound", "deviceAction", "requestPairing", "selfTest",
        ])
    }

    @Test func theDaemonsAnswersAreTheLinesTheyWere() throws {
        let settings = HouseholdSettings(volumeDB: -12, crescendoSeconds: 30, snoozeSeconds: 540, autoSilenceSeconds: 900.5)
        #expect(try line(SettingsReport(settings: settings, clock24h: false)) == (try json(#"""
            {"v":1,"id":7,"ok":true,"result":{"volumeDB":-12,"crescendoSeconds":30,"snoozeSeconds":540,"autoSilenceSeconds":900.5,"clock24h":false}}
            """#)))
        #expect(try line(settings) == (try json(#"""
            {"v":1,"id":7,"ok":true,"result":{"volumeDB":-12,"crescendoSeconds":30,"snoozeSeconds":540,"autoSilenceSeconds":900.5}}
            """#)))
        #expect(try line(PairingReply(answer: .allowed)) == (try json(#"{"v":1,"id":7,"ok":true,"result":{"answer":"allowed"}}"#)))
        #expect(try line(PairingReply(answer: .tooSoon, retryAfter: 42)) == (try json(#"{"v":1,"id":7,"ok":true,"result":{"answer":"tooSoon","retryAfter":42}}"#)))
        #expect(try line(NullAnswer()) == (try json(#"{"v":1,"id":7,"ok":true,"result":null}"#)))
    }

    @Test func aSettingsReportReadsBackAndNeedsItsClock() throws {
        let decoder = ControlProtocol.makeDecoder()
        let report = try decoder.decode(SettingsReport.self, from: Data(#"""
            {"volumeDB":-6,"crescendoSeconds":0,"snoozeSeconds":300,"autoSilenceSeconds":0,"clock24h":true}
            """#.utf8))
        #expect(report == SettingsReport(
            settings: HouseholdSettings(volumeDB: -6, crescendoSeconds: 0, snoozeSeconds: 300, autoSilenceSeconds: 0), clock24h: true))
        #expect(throws: DecodingError.self) {
            try decoder.decode(SettingsReport.self, from: Data(#"{"volumeDB":-6,"crescendoSeconds":0,"snoozeSeconds":300,"autoSilenceSeconds":0}"#.utf8))
        }
        #expect(throws: DecodingError.self) { try decoder.decode(NullAnswer.self, from: Data("{}".utf8)) }
    }

    private func json(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// The response line of `result`, read back as JSON: compared with a literal as values.
    private func line(_ result: some Encodable) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(try #require(ControlProtocol.line(SuccessMessage(id: 7, result: result)))))
    }
}
