import AlarmKitCore
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

    /// The one path's line, decoded: what a client reads.
    static func decoded(_ line: [UInt8]?) throws -> JSONValue {
        let line = try #require(line)
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(StrictJSON.validate(Array(line.dropLast())) == nil)
        return try JSONDecoder().decode(JSONValue.self, from: Data(line))
    }

    @Test func theLineSaysWhatJSONEncoderSaysAndFollowsChanges() throws {
        let lines = AlarmListLines()
        var alarms = [Self.alarm(6), Self.alarm(7)]
        let owner = ClientID(rawValue: 1000)
        let first = lines.line(id: 7, alarms: alarms, owner: owner)
        #expect(try Self.decoded(first) == Self.decoded(ControlProtocol.line(SuccessMessage(id: 7, result: alarms))))
        // A changed alarm is written again, a removed one is gone, the rest comes from before.
        alarms[1].state = .alerting
        alarms.removeFirst()
        alarms.append(Self.alarm(8))
        let second = lines.line(id: 8, alarms: alarms, owner: owner)
        #expect(try Self.decoded(second) == Self.decoded(ControlProtocol.line(SuccessMessage(id: 8, result: alarms))))
        #expect(try Self.decoded(lines.line(id: 9, alarms: [], owner: owner)) == Self.decoded(ControlProtocol.line(SuccessMessage(id: 9, result: [Alarm]()))))
        // Each client's own: another's list of the same alarms is its own line.
        let others = try Self.decoded(lines.line(id: 1, alarms: alarms, owner: ClientID(rawValue: 0)))
        #expect(try others == Self.decoded(ControlProtocol.line(SuccessMessage(id: 1, result: alarms))))
    }
}
