import AlarmKitCore
import FoundationEssentials
import Testing

@testable import AlarmControl
@testable import AlarmProtocol

/// ``StrictJSON``: exactly RFC 8259 JSON in UTF-8, and through ``ControlRequest/decode(line:operations:)``
/// a refusal of every other line, with the request's id when the line has it before the fault.
struct StrictJSONTests {
    @Test(arguments: [
        "{}", "[]", "0", "-0", "1.5e+10", "-0.0E-0", "123456789012345678901234567890", "1e400", "true", "false", "null",
        #""""#, #""\"\\\/\b\f\n\r\t""#, #""\u0000 \u001f \u00e9 \uFFFF""#, #""\ud83d\ude00 \uDBFF\uDFFF""#,
        "\"é 🌅 \u{7F} \u{80} \u{10FFFF}\"", " \t\r\n{ \"a\" : [ 1 , { \"b\" : null } ] } \n",
        #"{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}"#, #"{"a":1,"A":2,"a ":3,"é":4,"e\u0301":5}"#,
        String(repeating: "[", count: 64) + String(repeating: "]", count: 64),
    ])
    func acceptsJSON(text: String) {
        #expect(StrictJSON.validate(Array(text.utf8)) == nil, "\(text)")
        // JSONDecoder reads everything accepted here.
        #expect(throws: Never.self) { try JSONDecoder().decode(AnyJSON.self, from: Data(text.utf8)) }
    }

    @Test(arguments: [
        ("", "the line ends where a value belongs", 0),
        ("   ", "the line ends where a value belongs", 3),
        (#"{"a":1"#, "the line ends where ',' or '}' after a member belongs", 6),
        (#"{"a":1}}"#, "'}' after the JSON value", 7),
        (#"{"a":1} {}"#, "'{' after the JSON value", 8),
        (#"{"a" 1}"#, "'1' where ':' after a member name belongs", 5),
        (#"{1:2}"#, "'1' where a member name in double quotes belongs", 1),
        (#"[1 2]"#, "'2' where ',' or ']' after an element belongs", 3),
        (#"[,]"#, "',' where a value belongs", 1),
        (#""abc"#, "the line ends inside a string", 4),
        (#"nul"#, "a word that is not true, false or null", 0),
        (#"-"#, "the line ends where a digit belongs", 1),
        (#"1e"#, "the line ends where a digit in the exponent belongs", 2),
        (#"{"a":1,"a":2}"#, #"the member name "a" a second time in one object"#, 7),
        (#"{"é":1,"\u00e9":2}"#, #"the member name "é" a second time in one object"#, 8),
        (#"{"a":{"b":1,"b":1}}"#, #"the member name "b" a second time in one object"#, 12),
    ])
    func refusesWithTheProblemAndWhere(text: String, problem: String, offset: Int) {
        let violation = StrictJSON.validate(Array(text.utf8))
        #expect(violation?.problem == problem, "\(text)")
        #expect(violation?.offset == offset, "\(text)")
    }

    @Test func refusesDeeperNestingThanTheLimit() {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(StrictJSON.validate(Array(deep.utf8))?.problem == "more than 64 arrays and objects inside one another")
        let deepObjects = String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(StrictJSON.validate(Array(deepObjects.utf8))?.offset == 320)
    }

    @Test(arguments: [2, 31, 32, 33, 200])
    func aRepeatedNameIsFoundInAnObjectOfAnySize(names: Int) {
        let members = (0..<names).map { #""n\#($0)":\#($0)"# }
        let distinct = "{" + members.joined(separator: ",") + "}"
        #expect(StrictJSON.validate(Array(distinct.utf8)) == nil)
        for repeated in [0, names / 2, names - 1] {
            let text = "{" + (members + [#""n\#(repeated)":0"#]).joined(separator: ",") + "}"
            #expect(StrictJSON.validate(Array(text.utf8))?.problem == #"the member name "n\#(repeated)" a second time in one object"#)
        }
        // Names in nested objects are their own object's: the same name inside and outside is fine.
        let nested = "{" + members.joined(separator: ",") + #","inner":{"# + members.joined(separator: ",") + "}}"
        #expect(StrictJSON.validate(Array(nested.utf8)) == nil)
    }

    @Test func aViolationKeepsTheTopLevelMembersReadBeforeIt() {
        let violation = StrictJSON.validate(Array(#"{"v":1,"id":-12,"params":{"x":[1,]}}"#.utf8))
        #expect(violation?.completeTopLevelMembers == ["v": 5..<6, "id": 12..<15])
    }

    @Test(arguments: NotStrictJSON.shapes)
    func aRequestThatIsNotStrictJSONIsRefused(shape: NotStrictJSON.Shape) throws {
        let error = try #require(ControlRequest.decode(line: shape.bytes).failure, "accepted")
        #expect(error.code == .malformed)
        #expect(error.message.contains(shape.problem), "\(error.message)")
        let isEncoding = shape.problem == "invalid UTF-8" || shape.problem == "UTF-16"
        #expect(error.message.hasPrefix(isEncoding ? "the request is not valid UTF-8: " : "the request is not valid JSON: "))
        #expect(error.id == shape.id)
    }

    @Test func theShapesAreTheValidCancelSpoilt() throws {
        let request = try ControlRequest.decode(line: Array(NotStrictJSON.validCancel.utf8)).get()
        #expect(request.operation == "cancel" && request.id == 41)
        #expect(try request.parameters(AlarmIDParameters.self).id == NotStrictJSON.keptAlarm)
        #expect(try ControlRequest.decode(line: Array(NotStrictJSON.cancel(with: #""x":"\u00e9\ud83d\ude00""#).utf8)).get().id == 41)
    }
}

/// Any JSON text, read by `JSONDecoder` without converting a value: decoding it checks only that
/// `JSONDecoder` parses the text.
struct AnyJSON: Decodable {
    init(from decoder: any Decoder) throws {}
}
