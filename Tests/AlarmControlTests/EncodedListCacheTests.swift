import AlarmKit
import FoundationEssentials
import Testing

@testable import AlarmControl

@Suite("Lists encoded from cached elements")
struct EncodedListCacheTests {
    private static func alarm(hour: Int, state: Alarm.State = .scheduled) -> Alarm {
        Alarm(
            id: Alarm.ID(), schedule: .relative(.init(time: .init(hour: hour, minute: 30), repeats: .weekly([.monday]))),
            countdownDuration: .init(preAlert: nil, postAlert: 540), state: state)
    }

    private static func decode(_ encoded: EncodedJSON) throws -> [Alarm] {
        try ControlProtocol.makeDecoder().decode([Alarm].self, from: Data(encoded.bytes))
    }

    @Test("the bytes decode to the list, in its order")
    func matchesTheEncoder() throws {
        let cache = EncodedListCache<Alarm, Alarm.ID> { $0.id }
        let alarms = (0..<5).map { Self.alarm(hour: $0) }
        let encoded = try cache.encode(alarms)
        #expect(try Self.decode(encoded) == alarms)
        #expect(encoded.bytes.first == UInt8(ascii: "[") && encoded.bytes.last == UInt8(ascii: "]"))
        #expect(try Self.decode(try cache.encode([])) == [])
    }

    @Test("a changed element is encoded again; a removed one is not listed")
    func followsChanges() throws {
        let cache = EncodedListCache<Alarm, Alarm.ID> { $0.id }
        var alarms = (0..<3).map { Self.alarm(hour: $0) }
        _ = try cache.encode(alarms)
        alarms[1] = Alarm(id: alarms[1].id, schedule: alarms[1].schedule, countdownDuration: nil, state: .alerting)
        alarms.remove(at: 0)
        #expect(try Self.decode(try cache.encode(alarms)) == alarms)
    }

    @Test("beyond its capacity it keeps only the current list's elements")
    func prunes() throws {
        let cache = EncodedListCache<Alarm, Alarm.ID>(capacity: 4) { $0.id }
        for _ in 0..<3 { _ = try cache.encode((0..<2).map { Self.alarm(hour: $0) }) }
        #expect(cache.count == 2)
    }

    @Test("a response line splices the bytes; encoding through an Encoder gives the same value")
    func responseLine() throws {
        let alarms = [Self.alarm(hour: 7)]
        let encoded = try EncodedListCache<Alarm, Alarm.ID> { $0.id }.encode(alarms)
        let viaEncoder = try ControlProtocol.makeDecoder().decode(
            [Alarm].self, from: ControlProtocol.makeEncoder().encode(encoded))
        #expect(viaEncoder == alarms)
    }
}
