import AlarmKitCore
import AlarmModel
import FoundationEssentials
import Testing

@testable import AlarmControl
@testable import AlarmProtocol

@Suite struct AlarmListLinesTests {
    static func alarm(_ hour: Int, state: Alarm.State = .scheduled) -> Alarm {
        Alarm(
            id: UUID(), schedule: .relative(.init(time: .init(hour: hour, minute: 30), repeats: .weekly([.monday, .friday]))),
            countdownDuration: .init(preAlert: nil, postAlert: 540), state: state)
    }

    /// The array as a client reads it, decoded.
    static func decoded(_ array: [UInt8]?) throws -> JSONValue {
        let array = try #require(array)
        #expect(StrictJSON.validate(array) == nil)
        return try JSONDecoder().decode(JSONValue.self, from: Data(array))
    }

    static func encoded(_ alarms: [Alarm]) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: ControlProtocol.makeEncoder().encode(alarms))
    }

    @Test func theArraySaysWhatJSONEncoderSaysAndFollowsChanges() throws {
        let lines = AlarmListLines()
        var alarms = [Self.alarm(6), Self.alarm(7)]
        let owner = ClientID(rawValue: 1000)
        #expect(try Self.decoded(lines.array(alarms, owner: owner)) == Self.encoded(alarms))
        // A changed alarm is written again, a removed one is gone, the rest comes from before.
        alarms[1].state = .alerting
        alarms.removeFirst()
        alarms.append(Self.alarm(8))
        #expect(try Self.decoded(lines.array(alarms, owner: owner)) == Self.encoded(alarms))
        #expect(try Self.decoded(lines.array([], owner: owner)) == Self.encoded([]))
        // Each client's own: another's list of the same alarms is its own.
        #expect(try Self.decoded(lines.array(alarms, owner: ClientID(rawValue: 0))) == Self.encoded(alarms))
    }
}
