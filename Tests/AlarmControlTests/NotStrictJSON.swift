import AlarmKitCore
import FoundationEssentials
import Testing

/// Request lines that are not strict RFC 8259 JSON in UTF-8, each a `cancel` of ``keptAlarm``
/// that a lenient decoder would carry out (`JSONDecoder` reads most of them).
enum NotStrictJSON {
    struct Shape: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        /// Words of the refusal's message.
        var problem: String
        /// The id the refusal repeats: the line's, when it is read whole before the fault.
        var id: Int64?

        var testDescription: String { name }
    }

    /// The alarm every shape tries to cancel.
    static let keptAlarm = Alarm.ID(uuidString: "6F0C8E2A-1B7D-4C1E-9F3A-2D5B7C9E1F00")!

    /// The request the shapes are made from, valid: `{"v":1,"id":41,"op":"cancel","params":{"id":"…"}}`.
    static let validCancel = #"{"v":1,"id":41,"op":"cancel","params":{"id":"\#(keptAlarm.uuidString)"}}"#

    /// The valid cancel with `member` (`"x":…`) added after `params`.
    static func cancel(with member: String) -> String {
        String(validCancel.dropLast()) + "," + member + "}"
    }

    static func utf16(_ text: String, bigEndian: Bool) -> [UInt8] {
        text.utf16.flatMap { unit in bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
    }

    static let shapes: [Shape] = {
        let kept = keptAlarm.uuidString
        let params = #""params":{"id":"\#(kept)"}"#
        let textShapes: [(String, String, String, Int64?)] = [
            ("a trailing comma in the request", #"{"v":1,"id":41,"op":"cancel",\#(params),}"#, "a trailing comma before }", 41),
            ("a trailing comma in params", #"{"v":1,"id":41,"op":"cancel","params":{"id":"\#(kept)",}}"#, "a trailing comma before }", 41),
            ("a trailing comma in an array", cancel(with: #""x":[1,2,]"#), "a trailing comma before ]", 41),
            ("the invalid escape \\q", cancel(with: #""x":"\q""#), #"the invalid escape \q"#, 41),
            ("the invalid escape \\x41", cancel(with: #""x":"\x41""#), #"the invalid escape \x"#, 41),
            ("a raw NUL in a string", cancel(with: "\"x\":\"a\u{0}b\""), "the control character U+0000 unescaped", 41),
            ("a raw ESC in a string", cancel(with: "\"x\":\"\u{1B}[31mred\""), "the control character U+001B unescaped", 41),
            ("a raw tab in a string", cancel(with: "\"x\":\"a\tb\""), "the control character U+0009 unescaped", 41),
            ("a raw U+001F in a string", cancel(with: "\"x\":\"\u{1F}\""), "the control character U+001F unescaped", 41),
            ("a raw control character in op", "{\"v\":1,\"id\":41,\"op\":\"can\u{7}cel\",\(params)}", "U+0007", 41),
            ("a lone high surrogate", cancel(with: #""x":"\ud800""#), #"the high surrogate \uD800 without a low one"#, 41),
            ("a high surrogate then a letter", cancel(with: #""x":"\uD83DA""#), #"the high surrogate \uD83D without a low one"#, 41),
            ("a high surrogate then another escape", cancel(with: #""x":"\ud800\u0041""#), #"the high surrogate \uD800 without a low one"#, 41),
            ("two high surrogates", cancel(with: #""x":"\ud800\ud800""#), #"the high surrogate \uD800 without a low one"#, 41),
            ("a lone low surrogate", cancel(with: #""x":"\udc00""#), #"the low surrogate \uDC00 without a high one"#, 41),
            ("a reversed surrogate pair", cancel(with: #""x":"\ude00\ud83d""#), #"the low surrogate \uDE00"#, 41),
            ("a short \\u escape", cancel(with: #""x":"\u12""#), #"a \u escape without four hex digits"#, 41),
            ("a leading zero", cancel(with: #""x":007"#), "a number with a leading zero", 41),
            ("a leading zero in the id", #"{"v":1,"id":041,"op":"cancel",\#(params)}"#, "a number with a leading zero", nil),
            ("a plus sign", cancel(with: #""x":+1"#), "a number with a plus sign", 41),
            ("a fraction without digits", cancel(with: #""x":1."#), "where a digit after the decimal point belongs", 41),
            ("a fraction without an integer part", cancel(with: #""x":.5"#), "a number without a digit before its point", 41),
            ("a hexadecimal number", cancel(with: #""x":0x10"#), "'x' where ',' or '}' after a member belongs", 41),
            ("NaN", cancel(with: #""x":NaN"#), "NaN and Infinity are not JSON numbers", 41),
            ("Infinity", cancel(with: #""x":Infinity"#), "NaN and Infinity are not JSON numbers", 41),
            ("minus Infinity", cancel(with: #""x":-Infinity"#), "'I' where a digit belongs", 41),
            ("a block comment", #"{"v":1,"id":41,/* cancel it */"op":"cancel",\#(params)}"#, "a comment", 41),
            ("a line comment at the end", validCancel + " // cancel it", "a comment after the JSON value", 41),
            ("a single-quoted string", cancel(with: #""x":'y'"#), "a single-quoted string", 41),
            ("an unquoted member name", cancel(with: #"x:1"#), "'x' where a member name in double quotes belongs", 41),
            ("a repeated member", #"{"v":1,"id":41,"op":"cancel",\#(params),\#(params)}"#, #"the member name "params" a second time"#, 41),
            ("a repeated op", #"{"v":1,"id":41,"op":"cancel","op":"cancel",\#(params)}"#, #"the member name "op" a second time"#, 41),
            ("a repeated member in params", #"{"v":1,"id":41,"op":"cancel","params":{"id":"\#(kept)","id":"\#(kept)"}}"#, #"the member name "id" a second time"#, 41),
            ("a member repeated through an escape", #"{"v":1,"id":41,"op":"cancel","params":{"id":"\#(kept)","\u0069d":"\#(kept)"}}"#, #"the member name "id" a second time"#, 41),
            ("a repeated id", #"{"v":1,"id":41,"id":41,"op":"cancel",\#(params)}"#, #"the member name "id" a second time"#, 41),
            ("a form feed as whitespace", "{\"v\":1,\"id\":41,\u{0C}\"op\":\"cancel\",\(params)}", "byte 0x0C where a member name", 41),
            ("a no-break space as whitespace", "{\"v\":1,\"id\":41,\u{A0}\"op\":\"cancel\",\(params)}", "U+00A0 where a member name", 41),
            ("true in capitals", cancel(with: #""x":TRUE"#), "'T' where a value belongs", 41),
        ]
        var shapes = textShapes.map { Shape(name: $0.0, bytes: Array($0.1.utf8), problem: $0.2, id: $0.3) }
        let cancelLine = Array(validCancel.utf8)
        shapes += [
            Shape(name: "UTF-8 with a byte order mark", bytes: [0xEF, 0xBB, 0xBF] + cancelLine, problem: "a byte order mark"),
            Shape(name: "UTF-16LE with a byte order mark", bytes: [0xFF, 0xFE] + utf16(validCancel, bigEndian: false), problem: "UTF-16"),
            Shape(name: "UTF-16LE without a byte order mark", bytes: utf16(validCancel, bigEndian: false), problem: "byte 0x00 where a member name"),
            Shape(name: "UTF-16BE with a byte order mark", bytes: [0xFE, 0xFF] + utf16(validCancel, bigEndian: true), problem: "UTF-16"),
            Shape(name: "invalid UTF-8 in a string", bytes: Array(cancel(with: #""x":"é""#).utf8).replacing([0xC3, 0xA9], with: [0xC3, 0x28]), problem: "invalid UTF-8", id: 41),
            Shape(name: "Latin-1 in a string", bytes: Array(cancel(with: #""x":"é""#).utf8).replacing([0xC3, 0xA9], with: [0xE9]), problem: "invalid UTF-8", id: 41),
            Shape(name: "an overlong UTF-8 form", bytes: Array(cancel(with: #""x":"é""#).utf8).replacing([0xC3, 0xA9], with: [0xC0, 0xAF]), problem: "invalid UTF-8", id: 41),
            Shape(name: "a surrogate encoded in UTF-8", bytes: Array(cancel(with: #""x":"é""#).utf8).replacing([0xC3, 0xA9], with: [0xED, 0xA0, 0x80]), problem: "invalid UTF-8", id: 41),
            Shape(name: "UTF-8 above U+10FFFF", bytes: Array(cancel(with: #""x":"é""#).utf8).replacing([0xC3, 0xA9], with: [0xF4, 0x90, 0x80, 0x80]), problem: "invalid UTF-8", id: 41),
            Shape(name: "a cut UTF-8 sequence", bytes: Array(cancel(with: #""x":"é""#).utf8).replacing([0xC3, 0xA9], with: [0xE2, 0x82]), problem: "invalid UTF-8", id: 41),
        ]
        return shapes
    }()
}
