import Testing
@testable import VMProbeKit

@Suite struct DecimalTextTests {
    @Test func instantsRoundTripWithSixDecimals() throws {
        let instant = try #require(RealtimeInstant(parsing: "1764000000.123456"))
        #expect(instant.nanoseconds == 1_764_000_000_123_456_000)
        #expect(instant.text == "1764000000.123456")
        #expect(RealtimeInstant(parsing: "1764000000")?.text == "1764000000.000000")
        #expect(RealtimeInstant(parsing: "1764000000.5")?.text == "1764000000.500000")
        #expect(RealtimeInstant(parsing: "1764000000.1234565")?.text == "1764000000.123457")
        #expect(RealtimeInstant(parsing: "1764000000.12345649")?.text == "1764000000.123456")
        #expect(RealtimeInstant(parsing: ".25")?.nanoseconds == 250_000_000)
    }

    @Test func rejectsWhatIsNotADecimal() {
        for text in ["", ".", "-", "1e9", "12:00", "1.2.3", "0x10", " 1", "99999999999999999999"] {
            #expect(RealtimeInstant(parsing: text) == nil, "\(text)")
        }
    }

    @Test func negativeSecondsForOffsets() {
        #expect(DecimalText.nanoseconds(fromSeconds: "-1.5") == -1_500_000_000)
        #expect(DecimalText.seconds(nanoseconds: -1_500_000_000) == "-1.500000")
        #expect(DecimalText.seconds(nanoseconds: -400) == "0.000000")
        #expect(DecimalText.seconds(nanoseconds: 1_234_567_891, decimals: 3) == "1.235")
    }

    @Test func fixedDecimals() {
        #expect(DecimalText.fixed(2000.04, decimals: 1) == "2000.0")
        #expect(DecimalText.fixed(-6.0206, decimals: 2) == "-6.02")
        #expect(DecimalText.fixed(-0.004, decimals: 2) == "0.00")
        #expect(DecimalText.fixed(0.5, decimals: 0) == "1")
        #expect(DecimalText.fixed(.infinity, decimals: 2) == nil)
    }

    @Test func jsonIsOneLineWithKeysInOrder() {
        var object = JSONObject()
        object.set("at", .instant(RealtimeInstant(parsing: "1764000000.25")))
        object.set("level", .number(-6.0206, decimals: 2))
        object.set("none", .number(nil, decimals: 1))
        object.set("text", .array([.string("7°C \"x\"\\"), .string("tab\there\u{1}")]))
        object.set("ok", .bool(true))
        object.set("level", .integer(3))
        #expect(object.text == #"{"at":1764000000.250000,"level":3,"none":null,"text":["7°C \"x\"\\","tab\there\u0001"],"ok":true}"#)
    }
}
