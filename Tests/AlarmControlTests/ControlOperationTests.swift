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
            "setSettings", "trySound", "deviceAction", "requestPairing", "selfTest", "setTime", "uploadSound", "deleteSound", "setLight",
        ])
    }

    /// The daemon's answers byte for byte: keys sorted, so a line is the same in every process.
    @Test func theDaemonsAnswersAreTheLinesTheyWere() throws {
        let settings = HouseholdSettings(volumeDB: -12, crescendoSeconds: 30, snoozeSeconds: 540, autoSilenceSeconds: 900.5)
        #expect(try line(SettingsReport(settings: settings, clock24h: false, volumeScale: -40...0)) == #"""
            {"id":7,"ok":true,"result":{"autoSilenceSeconds":900.5,"clock24h":false,"crescendoSeconds":30,"snoozeSeconds":540,"volumeDB":-12,"volumeScale":[-40,0]},"v":1}
            """#)
        #expect(try line(settings) == #"""
            {"id":7,"ok":true,"result":{"autoSilenceSeconds":900.5,"crescendoSeconds":30,"snoozeSeconds":540,"volumeDB":-12},"v":1}
            """#)
        #expect(try line(PairingReply(answer: .allowed)) == #"{"id":7,"ok":true,"result":{"answer":"allowed"},"v":1}"#)
        #expect(try line(PairingReply(answer: .tooSoon, retryAfter: 42)) == #"{"id":7,"ok":true,"result":{"answer":"tooSoon","retryAfter":42},"v":1}"#)
        #expect(try line(NullAnswer()) == #"{"id":7,"ok":true,"result":null,"v":1}"#)
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

    /// The response line of `result` as the daemon writes it, without its newline.
    private func line(_ result: some Encodable) throws -> String {
        String(decoding: try #require(ControlProtocol.line(SuccessMessage(id: 7, result: result))).dropLast(), as: UTF8.self)
    }
}
