import AlarmTestKit
import Testing

@testable import AlarmControl
@testable import AlarmProtocol

struct ControlLineDecoderTests {
    private func lines(_ outputs: [ControlLineDecoder.Output]) -> [String] {
        outputs.map {
            switch $0 {
            case .line(let bytes): String(decoding: bytes, as: UTF8.self)
            case .tooLarge: "<tooLarge>"
            }
        }
    }

    @Test func splitsLinesArrivingInAnyPieces() {
        var decoder = ControlLineDecoder(maximumLineLength: 100)
        #expect(lines(decoder.feed(Array("{\"a\":".utf8))) == [])
        #expect(lines(decoder.feed(Array("1}\n{\"b\"".utf8))) == ["{\"a\":1}"])
        #expect(lines(decoder.feed(Array(":2}\n{\"c\":3}\n".utf8))) == ["{\"b\":2}", "{\"c\":3}"])
        #expect(decoder.pendingByteCount == 0)
    }

    @Test func joinsEveryByteFedSeparately() {
        var decoder = ControlLineDecoder(maximumLineLength: 100)
        var found: [String] = []
        for byte in Array("one\ntwo\r\n\n\nthree\n".utf8) {
            found += lines(decoder.feed([byte]))
        }
        #expect(found == ["one", "two", "three"])
    }

    @Test func acceptsALineOfExactlyTheLimitWithOrWithoutCarriageReturn() {
        let limit = ControlProtocol.maximumRequestSize
        var decoder = ControlLineDecoder(maximumLineLength: limit)
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: limit)
        #expect(decoder.feed(line) == [])
        #expect(decoder.feed([UInt8(ascii: "\n")]) == [.line(line)])
        #expect(decoder.feed(line + Array("\r".utf8)) == [])
        #expect(decoder.feed(Array("\n".utf8)) == [.line(line)])
        #expect(!decoder.hasFailed)
    }

    @Test func refusesALineOfTheLimitPlusOne() {
        let limit = ControlProtocol.maximumRequestSize
        var complete = ControlLineDecoder(maximumLineLength: limit)
        #expect(complete.feed([UInt8](repeating: 0x61, count: limit + 1) + [0x0A]) == [.tooLarge])
        // Growing past the limit without a newline is refused at once, not when the newline comes.
        var growing = ControlLineDecoder(maximumLineLength: limit)
        #expect(growing.feed([UInt8](repeating: 0x61, count: limit)) == [])
        #expect(growing.feed([0x61]) == [.tooLarge])
        #expect(growing.hasFailed)
        #expect(growing.feed(Array("{}\n".utf8)) == [], "after tooLarge the framing is lost: nothing more is read")
        #expect(growing.pendingByteCount == 0)
    }

    @Test func linesBeforeAnOversizedOneAreStillDelivered() {
        var decoder = ControlLineDecoder(maximumLineLength: 8)
        #expect(lines(decoder.feed(Array("short\nmuch too long\nlater\n".utf8))) == ["short", "<tooLarge>"])
    }

    @Test func memoryStaysBoundedWhateverArrives() {
        var decoder = ControlLineDecoder(maximumLineLength: 1024)
        var random = SeededRandomNumberGenerator(seed: 7)
        for _ in 0..<2_000 {
            let chunk = (0..<Int(random.next() % 300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            _ = decoder.feed(chunk)
            #expect(decoder.pendingByteCount <= 1024 + 1)
        }
    }
}
