import AlarmKit
import AlarmTestKit
import FoundationEssentials
import Glibc
import Testing

@testable import AlarmControl
@testable import AlarmEngine

/// The fast decoder against `JSONDecoder`, the authority: on everything the daemon writes it must
/// give the same alarms, bit for bit; on anything else it may only give up.
///
/// `ALARMD_FUZZ_ITERATIONS=N` sets the number of mutated lines (default 20,000);
/// `ALARMD_FUZZ_SEED=N` replays another seed.
@Suite(.timeLimit(.minutes(5)))
struct AlarmListDecoderTests {
    static let iterations = ProcessEnvironment.integer("ALARMD_FUZZ_ITERATIONS") ?? 20_000
    static let seed = UInt64(ProcessEnvironment.integer("ALARMD_FUZZ_SEED") ?? 0xA1A2)

    // MARK: - (a) What the daemon writes

    @Test func decodesRandomListsExactlyAsJSONDecoderDoes() throws {
        var random = SeededRandomNumberGenerator(seed: Self.seed)
        for round in 0..<300 {
            let alarms = (0..<Int.random(in: 0...12, using: &random)).map { _ in Self.randomAlarm(&random) }
            let encoder = ControlProtocol.makeEncoder()
            // Whitespace between every token, on some rounds.
            if round % 5 == 0 { encoder.outputFormatting.insert(.prettyPrinted) }
            let response = Array(try encoder.encode(SuccessMessage(id: Int64(round), result: alarms)))
            let fast = try #require(AlarmListDecoder.alarms(inResponse: response), "\(String(decoding: response, as: UTF8.self))")
            try Self.expectSame(fast, try ControlClient.result(of: response, as: [Alarm].self, operation: "alarms"), alarms)

            let event = Array(try encoder.encode(EventMessage(event: ControlEventName.alarms, subscription: round, data: alarms)))
            let fastEvent = try #require(AlarmListDecoder.alarms(inEvent: event))
            try Self.expectSame(fastEvent, try Self.referenceEvent(event), alarms)

            for alarm in alarms.prefix(2) {
                let single = Array(try encoder.encode(SuccessMessage(id: 1, result: alarm)))
                let fastSingle = try #require(AlarmListDecoder.alarm(inResponse: single))
                try Self.expectSame([fastSingle], [try ControlClient.result(of: single, as: Alarm.self, operation: "schedule")], [alarm])
            }
        }
    }

    /// Keys in another order, whitespace everywhere, `null` optionals, lower-case hex, signed zeros.
    static let handWritten = [
        #" { "result" : [ { "state" : "paused" , "countdownDuration" : { "postAlert" : null , "preAlert" : 1.5e2 } , "#
            + #""schedule" : null , "id" : "e621e1f8-c36c-495a-93fc-0c247a3e6e5f" } ] , "ok" : true , "id" : null , "v" : 1 } "#,
        #"{"ok":true,"result":[{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","state":"scheduled","#
            + #""schedule":{"relative":{"_0":{"repeats":{"weekly":{"_0":[]}},"time":{"minute":0,"hour":-0}}}},"countdownDuration":{}}]}"#,
        #"{"v":1,"id":-3,"ok":true,"result":[{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","state":"alerting","#
            + #""schedule":{"fixed":{"_0":-0}},"countdownDuration":{"preAlert":5e-324,"postAlert":1.7976931348623157E+308}}]}"#,
        "{\"v\":1,\r\n\t\"ok\":true,\"result\":[]}",
    ]

    @Test(arguments: handWritten)
    func decodesHandWrittenShapesAsJSONDecoderDoes(_ line: String) throws {
        let bytes = Array(line.utf8)
        let fast = try #require(AlarmListDecoder.alarms(inResponse: bytes))
        let reference = try ControlClient.result(of: bytes, as: [Alarm].self, operation: "alarms")
        #expect(fast == reference)
        #expect(fast.map(Self.bitPatterns) == reference.map(Self.bitPatterns))
    }

    @Test func readsTheLinesOfALiveServer() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let me = ClientID(rawValue: geteuid())
            for index in 0..<6 {
                let definition = index % 2 == 0 ? Sample.definition() : Sample.timer()
                _ = try await rig.runtime.schedule(id: Alarm.ID(), definition: definition, client: me)
            }
            let connection = try await rig.rawConnection()
            await connection.send(Sample.request(1, "alarms"))
            guard case .line(let list) = await connection.next() else { throw LiveServerError.noAnswer }
            let alarms = try #require(AlarmListDecoder.alarms(inResponse: list))
            #expect(alarms.count == 6)
            #expect(alarms == (try ControlClient.result(of: list, as: [Alarm].self, operation: "alarms")))

            await connection.send(Sample.scheduleRequest(2, alarm: Alarm.ID()))
            guard case .line(let scheduled) = await connection.next() else { throw LiveServerError.noAnswer }
            let alarm = try #require(AlarmListDecoder.alarm(inResponse: scheduled), "\(String(decoding: scheduled, as: UTF8.self))")
            #expect(alarm == (try ControlClient.result(of: scheduled, as: Alarm.self, operation: "schedule")))

            await connection.send(Sample.request(3, "subscribeAlarms"))
            var event: [UInt8]?
            while event == nil, case .line(let line) = await connection.next() {
                if EnvelopeScanner.scan(line)?.isEvent == true { event = line }
            }
            let line = try #require(event)
            let published = try #require(AlarmListDecoder.alarms(inEvent: line))
            #expect(published.count == 7)
            #expect(published == (try Self.referenceEvent(line)))
        }
    }

    enum LiveServerError: Error { case noAnswer }

    // MARK: - (b) What it leaves to JSONDecoder

    static let alarm = #"{"id":"\#(id)","state":"scheduled","schedule":{"fixed":{"_0":1.5}}}"#

    static func response(_ alarm: String) -> String { #"{"v":1,"id":7,"ok":true,"result":["# + alarm + "]}" }

    /// A response with one alarm of this id and these other members.
    static func withID(_ members: String) -> String { response(#"{"id":"\#(id)","# + members + "}") }

    static let id = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"

    @Test(arguments: [
        // Not a successful response.
        #"{"v":1,"id":7,"ok":false,"error":{"code":"notFound","message":"no"}}"#,
        #"{"v":1,"id":7,"ok":true,"result":null}"#, #"{"v":1,"id":7,"result":[]}"#, #"{"v":1,"id":7,"ok":"true","result":[]}"#,
        "", " ", "[]", "null", "{}", #"{"v":1,"event":"alarms","subscription":2,"data":[]}"#,
        // Unknown, extra and repeated keys.
        #"{"v":1,"id":7,"ok":true,"result":[],"error":null}"#, #"{"v":1,"id":7,"ok":true,"result":[],"more":1}"#,
        #"{"v":1,"id":7,"ok":true,"ok":true,"result":[]}"#, #"{"v":1,"id":7,"ok":true,"result":[],"result":[]}"#,
        withID(#""state":"scheduled","label":"x""#),
        withID(#""state":"scheduled","state":"paused""#),
        withID(#""state":"scheduled","schedule":{"fixed":{"_0":1},"relative":{"_0":1}}"#),
        withID(#""state":"scheduled","schedule":{"fixed":{"_0":1,"_1":2}}"#),
        withID(#""state":"scheduled","schedule":{"relative":{"_0":{"time":{"hour":7,"minute":0},"repeats":{"never":{"x":1}}}}}"#),
        // Truncated, or with something after the line.
        String(response(alarm).dropLast()), String(response(alarm).prefix(60)), response(alarm) + "x", response(alarm) + "}",
        // Wrong types and values.
        withID(#""state":"snoozed""#), response(#"{"state":"paused"}"#), response(#"{"id":"\#(id)"}"#),
        response(#"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5","state":"paused"}"#),
        response(#"{"id":"{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}","state":"paused"}"#),
        response(#"{"id":"E621E1F8C36C-495A-93FC-0C247A3E6E5F0","state":"paused"}"#),
        response(#"{"id":"G621E1F8-C36C-495A-93FC-0C247A3E6E5F","state":"paused"}"#), response(#"{"id":7,"state":"paused"}"#),
        withID(#""state":"paused","schedule":{"fixed":{"_0":"1.5"}}"#),
        withID(#""state":"paused","schedule":{"fixed":1.5}"#),
        withID(#""state":"paused","schedule":{}"#),
        withID(#""state":"paused","schedule":{"relative":{"_0":{"time":{"hour":7.0,"minute":0},"repeats":{"never":{}}}}}"#),
        withID(#""state":"paused","schedule":{"relative":{"_0":{"time":{"hour":7,"minute":0},"repeats":{"weekly":{"_0":["monday"]}}}}}"#),
        withID(#""state":"paused","schedule":{"relative":{"_0":{"time":{"hour":7,"minute":0},"repeats":{"never":[]}}}}"#),
        // Numbers JSON or JSONDecoder refuse, or that only JSONDecoder reads (an id it skips, 7.0 as an Int).
        #"{"v":1,"id":1.5,"ok":true,"result":[]}"#, #"{"v":1.0,"id":7,"ok":true,"result":[]}"#,
        withID(#""state":"paused","schedule":{"relative":{"_0":{"time":{"hour":7e0,"minute":0},"repeats":{"never":{}}}}}"#),
        withID(#""state":"paused","countdownDuration":{"preAlert":1e400}"#),
        withID(#""state":"paused","countdownDuration":{"preAlert":1e-400}"#),
        withID(#""state":"paused","countdownDuration":{"preAlert":0e5}"#),
        withID(#""state":"paused","countdownDuration":{"preAlert":01}"#),
        withID(#""state":"paused","countdownDuration":{"preAlert":1.}"#),
        withID(#""state":"paused","countdownDuration":{"preAlert":.5}"#),
        withID(#""state":"paused","countdownDuration":{"preAlert":+1}"#),
        withID(#""state":"paused","countdownDuration":{"preAlert":NaN}"#),
        withID(#""state":"paused","countdownDuration":{"preAlert":0x10}"#),
        // Escapes, even valid ones (`\u0061` is "a").
        withID(#""st\u0061te":"paused""#),
        withID(#""state":"p\u0061used""#),
        withID(#""state":"paused\ud83d\ude00""#),
        withID(#""state":"\ud83d""#),
    ])
    func givesUpOnWhatItDoesNotRead(_ line: String) {
        #expect(AlarmListDecoder.alarms(inResponse: Array(line.utf8)) == nil)
        #expect(AlarmListDecoder.alarm(inResponse: Array(line.utf8)) == nil)
    }

    @Test func readsEventsOnlyAsEventsAndResponsesOnlyAsResponses() {
        let event = Array(#"{"v":1,"event":"alarms","subscription":2,"data":["#.utf8) + Array(Self.alarm.utf8) + Array("]}".utf8)
        let response = Array(Self.response(Self.alarm).utf8)
        #expect(AlarmListDecoder.alarms(inEvent: event)?.count == 1)
        #expect(AlarmListDecoder.alarms(inResponse: event) == nil)
        #expect(AlarmListDecoder.alarms(inResponse: response)?.count == 1)
        #expect(AlarmListDecoder.alarms(inEvent: response) == nil)
        #expect(AlarmListDecoder.alarms(inEvent: Array(#"{"v":1,"event":"alarms","subscription":2}"#.utf8)) == nil)
        #expect(AlarmListDecoder.alarms(inEvent: Array(#"{"v":1,"event":"alarms","subscription":2.5,"data":[]}"#.utf8)) == nil)
    }

    /// The event's name is the one free string it reads; anything but ASCII there is left to JSONDecoder.
    @Test func givesUpOnBytesThatAreNotASCII() {
        let valid = Array(#"{"v":1,"event":"alarms","subscription":2,"data":[]}"#.utf8)
        #expect(AlarmListDecoder.alarms(inEvent: valid) == [])
        let name = valid.firstIndex(of: UInt8(ascii: "m"))!
        for replacement: [UInt8] in [[0xFF], [0xC3], [0xC3, 0xA9], [0xED, 0xA0, 0x80], [0x00], [0x1F], [0x5C, 0x6E]] {
            var line = valid
            line.replaceSubrange(name..<(name + 1), with: replacement)
            #expect(AlarmListDecoder.alarms(inEvent: line) == nil)
        }
    }

    // MARK: - (c) Mutations

    static let mutationSeeds: [[UInt8]] = {
        var random = SeededRandomNumberGenerator(seed: 0x5EED5)
        let encoder = ControlProtocol.makeEncoder()
        var lines: [[UInt8]] = []
        for count in [1, 1, 2, 3] {
            let alarms = (0..<count).map { _ in randomAlarm(&random) }
            lines.append(Array(try! encoder.encode(SuccessMessage(id: 7, result: alarms))))
            lines.append(Array(try! encoder.encode(SuccessMessage(id: 8, result: alarms[0]))))
            lines.append(Array(try! encoder.encode(EventMessage(event: ControlEventName.alarms, subscription: 2, data: alarms))))
        }
        return lines + handWritten.map { Array($0.utf8) }
    }()

    /// Values that are valid JSON where a number was, valid only to some decoders, or neither.
    static let replacements = [
        "0", "-0", "7.0", "7e0", "1E2", "0e5", "0.0e1", "1e-400", "1e400", "5e-324", "2.4703282292062328e-324",
        "1.7976931348623157e308", "1.8e308", "123456789012345678901234567890", "9223372036854775807",
        "0.1000000000000000055511151231257827", "00", "1.", ".5", "-", "+1", "null", "true", "\"7\"", "[]", "{}",
        "\"mon\"", "\"sun\"", "\"alerting\"", "\"countdown\"", "{\"never\":{}}", "{\"_0\":1}",
    ]

    static func mutate(_ random: inout SeededRandomNumberGenerator) -> [UInt8] {
        var bytes = mutationSeeds.randomElement(using: &random) ?? []
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            guard !bytes.isEmpty else { break }
            let at = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<9, using: &random) {
            case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
            case 1: bytes[at] = Array(#"0123456789abcdefABCDEF-+.eE"{}[],:\ u"#.utf8).randomElement(using: &random)!
            case 2: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...8, using: &random)))
            case 3: bytes.insert(Array(" \t\r\n,:\"{}[]0\\".utf8).randomElement(using: &random)!, at: at)
            case 4: bytes = Array(bytes.prefix(at))
            case 5:
                let end = min(bytes.count, at + Int.random(in: 1...40, using: &random))
                bytes.insert(contentsOf: bytes[at..<end], at: at)
            case 6:
                // A digit changed: still valid, another value, which both must read alike.
                if let digit = bytes[at...].firstIndex(where: { (0x30...0x39).contains($0) }) {
                    bytes[digit] = UInt8.random(in: 0x30...0x39, using: &random)
                }
            default:
                // A number swapped for another value.
                if let digit = bytes[at...].firstIndex(where: { (0x30...0x39).contains($0) }) {
                    var start = digit
                    while start > 0, bytes[start - 1] == UInt8(ascii: "-") || (0x30...0x39).contains(bytes[start - 1]) { start -= 1 }
                    var end = digit
                    while end < bytes.count, Array("0123456789.eE+-".utf8).contains(bytes[end]) { end += 1 }
                    bytes.replaceSubrange(start..<end, with: Array((replacements.randomElement(using: &random) ?? "0").utf8))
                }
            }
        }
        return bytes
    }

    @Test func whateverItReadsFromMutatedLinesJSONDecoderReadsAlike() throws {
        var random = SeededRandomNumberGenerator(seed: Self.seed &+ 1)
        var read = 0
        for _ in 0..<Self.iterations {
            let line = Self.mutate(&random)
            let text = String(decoding: line, as: UTF8.self)
            if let fast = AlarmListDecoder.alarms(inResponse: line) {
                read += 1
                let reference = try #require(try? ControlClient.result(of: line, as: [Alarm].self, operation: "alarms"), "\(text)")
                #expect(fast == reference && fast.map(Self.bitPatterns) == reference.map(Self.bitPatterns), "\(text)")
            }
            if let fast = AlarmListDecoder.alarm(inResponse: line) {
                read += 1
                let reference = try #require(try? ControlClient.result(of: line, as: Alarm.self, operation: "schedule"), "\(text)")
                #expect(fast == reference && Self.bitPatterns(fast) == Self.bitPatterns(reference), "\(text)")
            }
            if let fast = AlarmListDecoder.alarms(inEvent: line) {
                read += 1
                let reference = try #require(try? Self.referenceEvent(line), "\(text)")
                #expect(fast == reference && fast.map(Self.bitPatterns) == reference.map(Self.bitPatterns), "\(text)")
            }
        }
        // Enough mutations stay readable for the comparison to mean something.
        #expect(read > Self.iterations / 20, "\(read) of \(Self.iterations) mutated lines read")
    }

    // MARK: - Helpers

    static func referenceEvent(_ line: [UInt8]) throws -> [Alarm] {
        try ControlProtocol.makeDecoder().decode(EventEnvelope<[Alarm]>.self, from: Data(line)).data
    }

    /// Equal as values and to the bit: `==` takes `-0` for `0`.
    static func expectSame(_ fast: [Alarm], _ reference: [Alarm], _ original: [Alarm]) throws {
        #expect(fast == reference)
        #expect(fast.map(bitPatterns) == reference.map(bitPatterns))
        #expect(fast.map(bitPatterns) == original.map(bitPatterns))
    }

    static func bitPatterns(_ alarm: Alarm) -> [UInt64?] {
        var date: UInt64?
        if case .fixed(let fixed) = alarm.schedule { date = fixed.timeIntervalSinceReferenceDate.bitPattern }
        return [date, alarm.countdownDuration?.preAlert?.bitPattern, alarm.countdownDuration?.postAlert?.bitPattern]
    }

    static func randomAlarm(_ random: inout SeededRandomNumberGenerator) -> Alarm {
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { bytes in
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &random) }
        }
        let schedule: Alarm.Schedule? =
            switch Int.random(in: 0..<4, using: &random) {
            case 0: nil
            case 1: .fixed(Date(timeIntervalSince1970: randomSeconds(&random)))
            case 2: .relative(.init(time: randomTime(&random), repeats: .never))
            default:
                .relative(.init(
                    time: randomTime(&random),
                    repeats: .weekly((0..<Int.random(in: 0...8, using: &random)).map { _ in
                        [Locale.Weekday.sunday, .monday, .tuesday, .wednesday, .thursday, .friday, .saturday].randomElement(using: &random)!
                    })))
            }
        let countdownDuration: Alarm.CountdownDuration? =
            Bool.random(using: &random)
            ? nil
            : .init(
                preAlert: Bool.random(using: &random) ? nil : randomSeconds(&random),
                postAlert: Bool.random(using: &random) ? nil : randomSeconds(&random))
        return Alarm(
            id: UUID(uuid: uuid), schedule: schedule, countdownDuration: countdownDuration,
            state: Alarm.State.allCases.randomElement(using: &random)!)
    }

    static func randomTime(_ random: inout SeededRandomNumberGenerator) -> Alarm.Schedule.Relative.Time {
        Int.random(in: 0..<10, using: &random) == 0
            ? .init(hour: Int.random(in: -1_000_000...1_000_000, using: &random), minute: Int.random(in: -99...99, using: &random))
            : .init(hour: Int.random(in: 0...23, using: &random), minute: Int.random(in: 0...59, using: &random))
    }

    /// Seconds of every kind: whole, to the microsecond, long fractions, far past and future,
    /// huge, tiny, subnormal, signed zeros.
    static func randomSeconds(_ random: inout SeededRandomNumberGenerator) -> Double {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: Double(Int.random(in: 0...2_000_000_000, using: &random))
        case 1:
            Double(Int.random(in: 1_600_000_000...1_900_000_000, using: &random))
                + Double(Int.random(in: 0..<1_000_000, using: &random)) / 1e6
        case 2: Double.random(in: -4e9...4e9, using: &random)
        case 3: Double.random(in: -1e15...1e15, using: &random)
        case 4: [Date.distantPast, Date.distantFuture].randomElement(using: &random)!.timeIntervalSince1970
        case 5: Double.random(in: 0...100_000, using: &random).rounded(.down) + [0.5, 0.25, 0.1, 0.3, 0.999].randomElement(using: &random)!
        case 6: Double(bitPattern: UInt64.random(in: 1..<(1 << 52), using: &random)) * (Bool.random(using: &random) ? 1 : -1)
        case 7:
            [0.0, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e300, 1e-300, 540]
                .randomElement(using: &random)!
        case 8:
            Double(sign: .plus, exponent: Int.random(in: -1000...1000, using: &random), significand: Double.random(in: 1..<2, using: &random))
        default: Double.random(in: 0..<1, using: &random)
        }
    }
}
