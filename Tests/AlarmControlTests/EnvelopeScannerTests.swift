import FoundationEssentials
import Testing

@testable import AlarmControl

@Suite("Routing fields read without a full parse")
struct EnvelopeScannerTests {
    typealias Envelope = EnvelopeScanner.Envelope

    @Test(arguments: [
        (#"{"v":1,"id":7,"ok":true,"result":null}"#, Envelope(id: 7, ok: true)),
        (#"{"result":[{"a":"}]\"{","b":[1,2,{"c":-3.5e2}]}],"ok":true,"id":-12,"v":1}"#, Envelope(id: -12, ok: true)),
        (#"{"v":1,"event":"alarms","subscription":2,"data":[]}"#, Envelope(isEvent: true, subscription: 2)),
        (#" { "ok" : false , "id" : null , "error" : {"code":"busy","message":"x"} } "#, Envelope(ok: false)),
        (#"{}"#, Envelope()),
    ])
    func readsTheRoutingFields(_ line: String, _ expected: Envelope) {
        #expect(EnvelopeScanner.scan(Array(line.utf8)) == expected)
    }

    @Test(arguments: [
        "", "[]", "{", #"{"id":1"#, #"{"id":1.5,"ok":true}"#, #"{"id":"7"}"#, #"{"ok":1}"#,
        #"{"id":1,"ok":true}x"#, #"{"re\"sult":1}"#, #"{"result":[1,2}"#, #"{"result":"unterminated}"#,
        #"{"id":12345678901234567890}"#,
        // Repeated routing keys: decoders disagree on which counts (found by the fuzzer).
        #"{"v":1,"id":1,"ok":true,"result":null,"id":2}"#, #"{"v":1,"id":null,"ok":false,"ok":true}"#,
    ])
    func givesUpOnWhatItDoesNotRead(_ line: String) {
        #expect(EnvelopeScanner.scan(Array(line.utf8)) == nil)
    }

    /// Whatever it reads, it reads as JSONDecoder does.
    @Test func agreesWithTheDecoderOnRandomLines() throws {
        var random = SystemRandomNumberGenerator()
        let pieces = [#""id":3"#, #""ok":true"#, #""ok":false"#, #""event":"alarms""#, #""subscription":9"#,
                      #""result":{"x":[1,{"y":"a,b}"}]}"#, #""v":1"#, #""data":[true,null,"\u0041"]"#]
        for _ in 0..<500 {
            let chosen = pieces.shuffled(using: &random).prefix(Int.random(in: 0...pieces.count, using: &random))
            // Keep keys unique: the decoder and the scanner may pick different duplicates.
            var seen = Set<String>()
            let unique = chosen.filter { seen.insert(String($0.split(separator: ":")[0])).inserted }
            let line = Array(("{" + unique.joined(separator: ",") + "}").utf8)
            let decoded = try JSONDecoder().decode(IncomingEnvelope.self, from: Data(line))
            let scanned = try #require(EnvelopeScanner.scan(line))
            #expect(scanned.id == decoded.id && scanned.ok == decoded.ok)
            #expect(scanned.isEvent == (decoded.event != nil) && scanned.subscription == decoded.subscription)
        }
    }
}
