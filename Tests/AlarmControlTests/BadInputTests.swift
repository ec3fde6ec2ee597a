import AlarmKitCore
import AlarmModel
import AlarmTestKit
import FoundationEssentials
import Glibc
import Testing

@testable import AlarmControl
@testable import AlarmProtocol
@testable import AlarmEngine

/// Malformed, truncated, oversized and random messages sent to a running server over a real
/// socket: each gets an error reply or the connection is closed, the server carries on, and the
/// store's bytes do not change.
@Suite(.timeLimit(.minutes(5)))
struct BadInputTests {
    /// A valid request to cut short.
    static let scheduleLine: [UInt8] = Array(Sample.scheduleRequest(77, alarm: Alarm.ID(), Sample.definition()).dropLast())

    /// Messages that must each get at least one error reply (or close the connection).
    static var corpus: [(name: String, bytes: [UInt8])] {
        let uuid = Alarm.ID().uuidString
        let presentation = #""presentation":{"alert":{"title":"x","stopButton":{"text":"Stop","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"stop.circle"}}},"tintColor":{"red":1,"green":1,"blue":1},"sound":{"default":{}}"#
        var entries: [(String, String)] = [
            ("open brace", "{"), ("close brace", "}"), ("array", "[]"), ("null", "null"), ("true", "true"),
            ("number", "42"), ("string", #""string""#), ("spaces", "   "), ("only v", #"{"v":1}"#),
            ("no op", #"{"v":1,"id":1}"#), ("no id", #"{"v":1,"op":"alarms"}"#), ("no v", #"{"id":1,"op":"alarms"}"#),
            ("version 2", #"{"v":2,"id":1,"op":"alarms"}"#), ("version -1", #"{"v":-1,"id":1,"op":"alarms"}"#),
            ("version string", #"{"v":"1","id":1,"op":"alarms"}"#), ("version fraction", #"{"v":1.5,"id":1,"op":"alarms"}"#),
            ("id string", #"{"v":1,"id":"1","op":"alarms"}"#), ("id huge", #"{"v":1,"id":1e400,"op":"alarms"}"#),
            ("id too negative", #"{"v":1,"id":-99999999999999999999999,"op":"alarms"}"#),
            ("id object", #"{"v":1,"id":{},"op":"alarms"}"#), ("op case", #"{"v":1,"id":1,"op":"ALARMS"}"#),
            ("op empty", #"{"v":1,"id":1,"op":""}"#), ("op null", #"{"v":1,"id":1,"op":null}"#),
            ("op array", #"{"v":1,"id":1,"op":["schedule"]}"#), ("schedule bare", #"{"v":1,"id":1,"op":"schedule"}"#),
            ("schedule empty", #"{"v":1,"id":1,"op":"schedule","params":{}}"#),
            ("schedule bad id", #"{"v":1,"id":1,"op":"schedule","params":{"id":"x"}}"#),
            ("schedule empty definition", #"{"v":1,"id":1,"op":"schedule","params":{"id":"\#(uuid)","definition":{}}}"#),
            ("schedule hour 25", #"{"v":1,"id":1,"op":"schedule","params":{"id":"\#(uuid)","definition":{"schedule":{"relative":{"_0":{"time":{"hour":25,"minute":0},"repeats":{"never":{}}}}},\#(presentation)}}}"#),
            ("schedule negative timer", #"{"v":1,"id":1,"op":"schedule","params":{"id":"\#(uuid)","definition":{"countdownDuration":{"preAlert":-5},\#(presentation)}}}"#),
            ("schedule date words", #"{"v":1,"id":1,"op":"schedule","params":{"id":"\#(uuid)","definition":{"schedule":{"fixed":{"_0":"yesterday"}}}}}"#),
            ("stop unknown alarm", #"{"v":1,"id":1,"op":"stop","params":{"id":"\#(uuid)"}}"#),
            ("pause numeric id", #"{"v":1,"id":1,"op":"pause","params":{"id":12}}"#),
            ("cancel params array", #"{"v":1,"id":1,"op":"cancel","params":[]}"#),
            ("disable unknown alarm", #"{"v":1,"id":1,"op":"disable","params":{"id":"\#(uuid)"}}"#),
            ("enable without params", #"{"v":1,"id":1,"op":"enable"}"#),
            ("skip numeric id", #"{"v":1,"id":1,"op":"skip","params":{"id":12}}"#),
            ("skip a one-time alarm", #"{"v":1,"id":1,"op":"skip","params":{"id":"\#(NotStrictJSON.keptAlarm.uuidString)"}}"#),
            ("unsubscribe letters", #"{"v":1,"id":1,"op":"unsubscribe","params":{"subscription":"a"}}"#),
            ("set uid negative", #"{"v":1,"id":1,"op":"setAuthorization","params":{"uid":-1,"state":"authorized"}}"#),
            ("set state unknown", #"{"v":1,"id":1,"op":"setAuthorization","params":{"uid":5,"state":"maybe"}}"#),
            ("two objects", #"{"v":1,"id":1,"op":"hello"}{"v":1}"#), ("trailing garbage", #"{"v":1,"id":1,"op":"hello"} x"#),
            ("unterminated params", #"{"v":1,"id":1,"op":"hello","params":{"x":"#),
            ("lone surrogate op", #"{"v":1,"id":1,"op":"\ud800"}"#),
            ("nul inside", "{\"v\":1,\0\"id\":1,\"op\":\"hello\"}"),
        ]
        entries.append(("deep arrays", String(repeating: "[", count: 60_000)))
        entries.append(("deep objects", String(repeating: #"{"a":"#, count: 10_000)))
        entries.append(("long op", #"{"v":1,"id":1,"op":""# + String(repeating: "a", count: 60_000) + #""}"#))
        var all = entries.map { ($0.0, Array($0.1.utf8)) }
        // Each a cancel of the alarm the test keeps, which a lenient decoder would carry out.
        all += NotStrictJSON.shapes.map { ("not strict JSON: \($0.name)", $0.bytes) }
        all.append(("invalid UTF-8", [0xC3, 0x28]))
        all.append(("0xFF bytes", [UInt8](repeating: 0xFF, count: 10)))
        for cut in [1, 10, 37, scheduleLine.count / 2, scheduleLine.count - 1] {
            all.append(("truncated at \(cut)", Array(scheduleLine.prefix(cut))))
        }
        all.append(("oversized text", [UInt8](repeating: UInt8(ascii: "x"), count: 70_000)))
        all.append(("oversized by one", Array(#"{"v":1,"id":1,"op":"hello","pad":""#.utf8) + [UInt8](repeating: 0x61, count: 65_536 - 35) + Array(#""}"#.utf8)))
        var random = SeededRandomNumberGenerator(seed: 20_261_123)
        for index in 0..<4 {
            // Printable noise, so that no piece of it is blank.
            all.append(("random \(index)", (0..<Int.random(in: 1...3000, using: &random)).map { _ in UInt8.random(in: 0x21...0x7E, using: &random) }))
        }
        return all
    }

    @Test func everyBadMessageGetsAnErrorOrClosesTheConnectionAndChangesNothing() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            // Something in the store to keep, and our own authorization recorded first.
            _ = try await rig.runtime.schedule(id: Alarm.ID(), definition: Sample.definition("Keep"), client: ClientID(rawValue: 1000))
            _ = try await rig.runtime.schedule(
                id: NotStrictJSON.keptAlarm, definition: Sample.definition("Mine"), client: ClientID(rawValue: geteuid()))
            _ = try await rig.client().authorizationState()
            let before = rig.storeFiles()
            let alarmsBefore = await rig.runtime.allAlarms()
            #expect(!before.isEmpty)

            var connection = try await rig.rawConnection()
            var closures = 0
            var codes: [String: String] = [:]
            for (index, entry) in Self.corpus.enumerated() {
                let sentinel = Int64(1_000_000 + index)
                await connection.send(entry.bytes + [0x0A] + Sample.request(sentinel, "hello"))
                var errors = 0
                reading: while true {
                    switch await connection.next() {
                    case .line(let line):
                        let message = try? JSONDecoder().decode(JSONValue.self, from: Data(line))
                        if message?["id"] == .integer(sentinel), message?["ok"] == .bool(true) { break reading }
                        #expect(message?["ok"] == .bool(false), "\(entry.name): \(String(decoding: line.prefix(200), as: UTF8.self))")
                        #expect(message?["error"]?["message"]?.stringValue?.isEmpty == false)
                        codes[entry.name] = codes[entry.name] ?? message?["error"]?["code"]?.stringValue
                        errors += 1
                    case .closed:
                        closures += 1
                        #expect(entry.name.hasPrefix("oversized"), "\(entry.name) closed the connection")
                        connection = try await rig.rawConnection()
                        break reading
                    case .timedOut:
                        Issue.record("\(entry.name): no answer")
                        break reading
                    }
                }
                #expect(errors >= 1 || entry.name.hasPrefix("oversized"), "\(entry.name) got no error")
            }
            #expect(closures == 2)
            #expect(Self.corpus.count >= 100)
            // Well-formed requests that do not fit are refused by the engine, with its own codes.
            #expect(codes["schedule hour 25"] == "invalidConfiguration")
            #expect(codes["schedule negative timer"] == "invalidConfiguration")
            #expect(codes["stop unknown alarm"] == "notFound")
            #expect(codes["disable unknown alarm"] == "notFound")
            #expect(codes["enable without params"] == "malformed")
            #expect(codes["skip numeric id"] == "malformed")
            #expect(codes["skip a one-time alarm"] == "invalidTransition")
            #expect(codes["version 2"] == "unsupportedVersion")
            #expect(codes["op case"] == "unknownOperation")
            #expect(codes["oversized by one"] == "tooLarge")
            for shape in NotStrictJSON.shapes { #expect(codes["not strict JSON: \(shape.name)"] == "malformed", "\(shape.name)") }
            // Still serving, and nothing changed.
            #expect(try await rig.client().hello().protocol == 1)
            #expect(rig.storeFiles() == before)
            #expect(await rig.runtime.allAlarms() == alarmsBefore)
        }
    }

    @Test(arguments: NotStrictJSON.shapes)
    func aLineThatIsNotStrictJSONIsRefusedAndChangesNothing(shape: NotStrictJSON.Shape) async throws {
        let rig = try ServerRig()
        try await rig.serving {
            _ = try await rig.runtime.schedule(
                id: NotStrictJSON.keptAlarm, definition: Sample.definition("Mine"), client: ClientID(rawValue: geteuid()))
            let before = rig.storeFiles()
            let connection = try await rig.rawConnection()
            await connection.send(shape.bytes + [0x0A] + Sample.request(99, "hello"))
            let refusal = await connection.nextMessage()
            #expect(refusal?["ok"] == .bool(false))
            #expect(refusal?["id"] == shape.id.map(JSONValue.integer) ?? .null)
            #expect(refusal?["error"]?["code"] == .string("malformed"))
            let message = refusal?["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains(shape.problem), "\(message)")
            // The connection goes on.
            #expect(await connection.nextMessage()?["id"] == .integer(99))
            #expect(await rig.runtime.allRecords().contains { $0.id == NotStrictJSON.keptAlarm })
            #expect(rig.storeFiles() == before)
        }
    }
}
