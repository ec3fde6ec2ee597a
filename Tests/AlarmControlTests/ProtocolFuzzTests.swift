import AlarmKitCore
import AlarmModel
import AlarmTestKit
import FoundationEssentials
import Glibc
import Testing

@testable import AlarmControl
@testable import AlarmProtocol
@testable import AlarmEngine

/// A seeded fuzz of the protocol: valid requests of every operation, mutated (bytes flipped,
/// cut, spliced, duplicated, numbers swapped for extreme ones, random noise), through the pure
/// decoder and through a live server.
///
/// `ALARMD_FUZZ_ITERATIONS=N` sets the number of messages (default 20,000: about 2.5 s; 200,000
/// took 15 s), a fixed budget for CI; `ALARMD_FUZZ_SEED=N` replays another seed.
@Suite(.timeLimit(.minutes(10)))
struct ProtocolFuzzTests {
    static let iterations = ProcessEnvironment.integer("ALARMD_FUZZ_ITERATIONS") ?? 20_000
    static let seed = UInt64(ProcessEnvironment.integer("ALARMD_FUZZ_SEED") ?? 0x5EED)

    static let seeds: [[UInt8]] = {
        let id = Alarm.ID()
        var lines = [
            Sample.request(1, "hello"), Sample.request(2, "alarms"), Sample.request(3, "subscribeAlarms"),
            Sample.request(4, "subscribeAuthorization"), Sample.request(5, "unsubscribe", ["subscription": .integer(1)]),
            Sample.request(6, "authorizationState"), Sample.request(7, "requestAuthorization"), Sample.request(8, "allAlarms"),
            Sample.request(9, "authorizations"), Sample.request(10, "setAuthorization", ["uid": .integer(1000), "state": .string("authorized")]),
            Sample.request(11, "alarmRecords", ["nested": .array([.integer(1), .object(["a": .null])])]),
            Sample.scheduleRequest(12, alarm: id, Sample.definition()), Sample.scheduleRequest(13, alarm: id, Sample.timer()),
        ]
        for action in AlarmAction.allCases {
            lines.append(Sample.request(20, action.rawValue, ["id": .string(id.uuidString)]))
        }
        return lines.map { Array($0.dropLast()) }
    }()

    static let extremes = ["1e400", "-1e400", "99999999999999999999", "-0", "0.0000000001", "null", "true", "\"\"", "[]", "{}", "NaN", "4294967296", "-1"]

    static func mutate(_ random: inout SeededRandomNumberGenerator) -> [UInt8] {
        var bytes = seeds.randomElement(using: &random) ?? []
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            guard !bytes.isEmpty else { break }
            let at = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<8, using: &random) {
            case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
            case 1: bytes[at] ^= 1 << UInt8.random(in: 0...7, using: &random)
            case 2: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...20, using: &random)))
            case 3: bytes.insert(contentsOf: (0..<Int.random(in: 1...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }, at: at)
            case 4: bytes = Array(bytes.prefix(at))
            case 5:
                let other = seeds.randomElement(using: &random) ?? []
                bytes = Array(bytes.prefix(at)) + Array(other.suffix(from: Int.random(in: 0..<max(1, other.count), using: &random)))
            case 6:
                let end = min(bytes.count, at + Int.random(in: 1...40, using: &random))
                bytes.insert(contentsOf: bytes[at..<end], at: at)
            default:
                // A number or a value swapped for an extreme one.
                if let digit = bytes[at...].firstIndex(where: { (0x30...0x39).contains($0) }) {
                    var end = digit
                    while end < bytes.count, (0x30...0x39).contains(bytes[end]) { end += 1 }
                    bytes.replaceSubrange(digit..<end, with: Array((extremes.randomElement(using: &random) ?? "0").utf8))
                }
            }
        }
        if Int.random(in: 0..<20, using: &random) == 0 {
            bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
        return bytes
    }

    /// Decodes `request`'s parameters as its operation's type, as the server would.
    static func decodeParameters(_ request: ControlRequest) {
        switch request.operation {
        case "schedule": _ = try? request.parameters(ScheduleParameters.self)
        case "unsubscribe": _ = try? request.parameters(UnsubscribeParameters.self)
        case "setAuthorization": _ = try? request.parameters(SetAuthorizationParameters.self)
        case let name where AlarmAction(rawValue: name) != nil: _ = try? request.parameters(AlarmIDParameters.self)
        default: _ = try? request.parameters(JSONValue.self)
        }
    }

    @Test func theDecoderAnswersEveryMutationWithARequestOrAOneLineError() {
        var random = SeededRandomNumberGenerator(seed: Self.seed)
        var decoder = ControlLineDecoder(maximumLineLength: ControlProtocol.maximumRequestSize)
        var accepted = 0
        var refused = 0
        var notStrict = 0
        for _ in 0..<Self.iterations {
            var message = Self.mutate(&random)
            message.append(0x0A)
            // In pieces, as reads deliver them.
            var offset = 0
            while offset < message.count {
                let end = min(message.count, offset + Int.random(in: 1...64, using: &random))
                for output in decoder.feed(message[offset..<end]) {
                    guard case .line(let line) = output else { continue }
                    let isStrictJSON = StrictJSON.validate(line) == nil
                    if isStrictJSON {
                        #expect(throws: Never.self) { try JSONDecoder().decode(AnyJSON.self, from: Data(line)) }
                    }
                    switch ControlRequest.decode(line: line, operations: ControlOperation.names) {
                    case .success(let request):
                        #expect(isStrictJSON, "accepted: \(String(decoding: line, as: UTF8.self).debugDescription)")
                        accepted += 1
                        Self.decodeParameters(request)
                    case .failure(let error):
                        refused += 1
                        if !isStrictJSON { notStrict += 1 }
                        #expect(!error.message.isEmpty && !error.message.contains("\n"), "\(error.message)")
                    }
                }
                offset = end
            }
        }
        #expect(!decoder.hasFailed)
        #expect(accepted > 0 && refused > 0, "the mutations reach both sides: \(accepted) accepted, \(refused) refused")
        #expect(notStrict > 0, "some mutations are refused as not strict JSON")
    }

    @Test func theLiveServerSurvivesEveryMutationAndItsStoreStaysTheSame() async throws {
        let rig = try ServerRig()
        // A client that can change nothing: not an administrator, denied, without alarms.
        let user: (uid: UInt32, gid: UInt32)? = getuid() == 0 ? ServerRig.otherUser : nil
        let client = ClientID(rawValue: user?.uid ?? geteuid())
        try await rig.serving {
            _ = try await rig.runtime.schedule(id: Alarm.ID(), definition: Sample.definition("Keep"), client: ClientID(rawValue: 1000))
            try await rig.runtime.setAuthorization(.denied, for: client)
            let before = rig.storeFiles()
            var random = SeededRandomNumberGenerator(seed: Self.seed &+ 1)
            var connection = try await rig.rawConnection(as: user)
            let batches = max(1, Self.iterations / 4 / 50)
            var sentinel: Int64 = 5_000_000
            for _ in 0..<batches {
                var batch: [UInt8] = []
                for _ in 0..<50 { batch += Self.mutate(&random) + [0x0A] }
                sentinel += 1
                await connection.send(batch + Sample.request(sentinel, "hello"))
                reading: while true {
                    switch await connection.next() {
                    case .line(let line):
                        let message = try? JSONDecoder().decode(JSONValue.self, from: Data(line))
                        if message?["id"] == .integer(sentinel), message?["result"]?["uid"] != nil { break reading }
                    case .closed:
                        connection = try await rig.rawConnection(as: user)
                        break reading
                    case .timedOut:
                        Issue.record("the server stopped answering")
                        return
                    }
                }
            }
            #expect(try await rig.client().hello().protocol == 1)
            #expect(rig.storeFiles() == before)
            #expect(await rig.runtime.alarms(for: client).isEmpty)
        }
    }
}

/// Reads the environment once per name (never while a test may be changing it).
enum ProcessEnvironment {
    static func integer(_ name: String) -> Int? {
        guard let value = getenv(name) else { return nil }
        return Int(String(cString: value))
    }
}
