import TOMLConfig
import Testing

@Suite struct TOMLDocumentTests {
    static let sample = """
        # A board, with every kind of value.
        name = "sample"   # trailing comment
        simulated = false

        [gpio]
        chip = 'pinctrl-bcm2711'
        stop = "GPIO17"
        led = 22
        mask = 0xFF_FF
        bits = 0b1010
        mode = 0o755
        big = 1_000_000
        negative = -17
        positive = +3

        [display.pins]
        rs = 0
        list = [1, 2, 3, ]
        nested = [[1, 2], ["a"], []]
        mixed = [ "x" , 1.5, true ]

        [sound]
        gain = 0.75
        tiny = 6.02e-3
        huge = 1E6
        edge = -inf
        undefined = nan
        escapes = "tab\\there \\"quoted\\" back\\\\slash \\u00e9 \\U0001F514 line\\nbreak"
        literal = 'C:\\no\\escapes "here"'
        hash = "# not a comment"
        empty = ""
        """

    @Test func aValidDocumentKeepsEveryValueWithItsLine() throws {
        let document = try TOMLDocument.parse(Self.sample, file: "sample.toml")
        #expect(document.file == "sample.toml")
        #expect(document["name"] == TOMLEntry(key: "name", value: .string("sample"), line: 2))
        #expect(document["simulated"]?.value == .boolean(false))
        #expect(document["gpio.chip"] == TOMLEntry(key: "gpio.chip", value: .string("pinctrl-bcm2711"), line: 6))
        #expect(document["gpio.led"]?.value == .integer(22))
        #expect(document["gpio.mask"]?.value == .integer(0xFFFF))
        #expect(document["gpio.bits"]?.value == .integer(10))
        #expect(document["gpio.mode"]?.value == .integer(0o755))
        #expect(document["gpio.big"]?.value == .integer(1_000_000))
        #expect(document["gpio.negative"]?.value == .integer(-17))
        #expect(document["gpio.positive"]?.value == .integer(3))
        #expect(document["display.pins.rs"] == TOMLEntry(key: "display.pins.rs", value: .integer(0), line: 17))
        #expect(document["display.pins.list"]?.value == .array([.integer(1), .integer(2), .integer(3)]))
        #expect(document["display.pins.nested"]?.value == .array([.array([.integer(1), .integer(2)]), .array([.string("a")]), .array([])]))
        #expect(document["display.pins.mixed"]?.value == .array([.string("x"), .float(1.5), .boolean(true)]))
        #expect(document["sound.gain"]?.value == .float(0.75))
        #expect(document["sound.tiny"]?.value == .float(6.02e-3))
        #expect(document["sound.huge"]?.value == .float(1e6))
        #expect(document["sound.edge"]?.value == .float(-.infinity))
        if case .float(let value)? = document["sound.undefined"]?.value { #expect(value.isNaN) } else { Issue.record("nan") }
        #expect(document["sound.escapes"]?.value == .string("tab\there \"quoted\" back\\slash é 🔔 line\nbreak"))
        #expect(document["sound.literal"]?.value == .string("C:\\no\\escapes \"here\""))
        #expect(document["sound.hash"]?.value == .string("# not a comment"))
        #expect(document["sound.empty"]?.value == .string(""))
        #expect(document.tables == [TOMLTable(name: "gpio", line: 5), TOMLTable(name: "display.pins", line: 16), TOMLTable(name: "sound", line: 22)])
        #expect(document.entries.count == 24)
        #expect(document.isTable("display") && document.isTable("display.pins") && !document.isTable("gpio.chip"))
        #expect(document.table("display") == nil)
    }

    @Test func whitespaceCarriageReturnsAndAByteOrderMarkAreAccepted() throws {
        let document = try TOMLDocument.parse("\u{FEFF}a=1\r\n\t[ t . u ]  # c\r\n  b\t=\t\"x\"\r\n", file: "f")
        #expect(document["a"] == TOMLEntry(key: "a", value: .integer(1), line: 1))
        #expect(document["t.u.b"] == TOMLEntry(key: "t.u.b", value: .string("x"), line: 3))
        #expect(document.tables == [TOMLTable(name: "t.u", line: 2)])
    }

    @Test func anEmptyDocumentHasNothing() throws {
        let document = try TOMLDocument.parse("\n# only a comment\n\n", file: "f")
        #expect(document.entries.isEmpty && document.tables.isEmpty)
    }

    @Test func aSuperTableMayBeDeclaredAfterItsChild() throws {
        let document = try TOMLDocument.parse("[a.b]\nx = 1\n[a]\ny = 2\n", file: "f")
        #expect(document["a.b.x"]?.line == 2 && document["a.y"]?.line == 4)
    }

    /// Each case: the document, then its one error line exactly.
    static let refused: [(String, String)] = [
        // Structure.
        ("a = 1\na = 2", "f.toml:2: a: duplicate key (first on line 1)"),
        ("[t]\nx = 1\n\n[t]", "f.toml:4: t: duplicate table [t] (first on line 1)"),
        ("[t]\nx = 1\n[t.x]", "f.toml:3: t.x: [t.x] redefines the value t.x on line 2"),
        ("t = 1\n[t.u]", "f.toml:2: t.u: [t.u] redefines the value t on line 1"),
        ("[a.b]\n[a]\nb = 1", "f.toml:3: a.b: already a table (line 1)"),
        ("[[points]]", "f.toml:1: arrays of tables ([[...]]) are not supported"),
        ("[t", "f.toml:1: missing ']' at the end of the table header"),
        ("[t u]", "f.toml:1: unexpected 'u' in the table header"),
        ("[]", "f.toml:1: unexpected ']' where a table name should be"),
        ("[t.]", "f.toml:1: unexpected ']' where a table name should be"),
        ("[\"t\"]", "f.toml:1: quoted keys are not supported; use letters, digits, '_' and '-'"),
        ("[t] x = 1", "f.toml:1: unexpected text after the table header: x = 1"),
        // Keys.
        ("= 1", "f.toml:1: missing key before '='"),
        ("\"a\" = 1", "f.toml:1: quoted keys are not supported; use letters, digits, '_' and '-'"),
        ("a.b = 1", "f.toml:1: a: dotted keys are not supported; put the key under a [table] header"),
        ("a", "f.toml:1: a: expected '=' and a value after the key"),
        ("a : 1", "f.toml:1: a: expected '=' after the key, found ':'"),
        ("é = 1", "f.toml:1: unexpected 'é' where a key should be"),
        ("a =", "f.toml:1: a: missing value after '='"),
        ("a = # nothing", "f.toml:1: a: missing value after '='"),
        // Strings.
        ("a = \"open", "f.toml:1: a: unterminated string (strings end on the line they start)"),
        ("a = 'open", "f.toml:1: a: unterminated string (strings end on the line they start)"),
        ("a = \"\"\"long\"\"\"", "f.toml:1: a: multi-line strings (\"\"\") are not supported"),
        ("a = '''long'''", "f.toml:1: a: multi-line strings (''') are not supported"),
        ("a = \"\\q\"", "f.toml:1: a: invalid escape \\q in string"),
        ("a = \"\\u12\"", "f.toml:1: a: \\u needs exactly 4 hexadecimal digits"),
        ("a = \"\\uD800\"", "f.toml:1: a: \\uD800 is not a Unicode scalar value"),
        ("a = \"\\U00110000\"", "f.toml:1: a: \\U00110000 is not a Unicode scalar value"),
        ("a = \"bell\u{07}\"", "f.toml:1: a: control character U+0007 in string (write it as an escape)"),
        ("a = \"x\" y", "f.toml:1: a: unexpected text after the value: y"),
        ("a = \"x\\", "f.toml:1: a: unterminated string (a '\\' ends the line)"),
        // Numbers and words.
        ("a = pinctrl-bcm2711", "f.toml:1: a: invalid value pinctrl-bcm2711 (strings need quotes: \"pinctrl-bcm2711\")"),
        ("a = True", "f.toml:1: a: invalid value True (strings need quotes: \"True\")"),
        ("a = 007", "f.toml:1: a: leading zeros are not allowed in 007"),
        ("a = 1__0", "f.toml:1: a: invalid number 1__0"),
        ("a = _1", "f.toml:1: a: invalid value _1 (strings need quotes: \"_1\")"),
        ("a = 1_", "f.toml:1: a: invalid number 1_"),
        ("a = 0x", "f.toml:1: a: invalid number 0x"),
        ("a = 0xG1", "f.toml:1: a: invalid number 0xG1"),
        ("a = 0b102", "f.toml:1: a: invalid number 0b102"),
        ("a = -0x10", "f.toml:1: a: hexadecimal, octal and binary integers cannot have a sign: -0x10"),
        ("a = 12ab", "f.toml:1: a: invalid value 12ab (strings need quotes: \"12ab\")"),
        ("a = 9223372036854775808", "f.toml:1: a: integer 9223372036854775808 is out of range"),
        ("a = 0xFFFFFFFFFFFFFFFF", "f.toml:1: a: integer 0xFFFFFFFFFFFFFFFF is out of range"),
        ("a = 1.", "f.toml:1: a: invalid number 1."),
        ("a = .5", "f.toml:1: a: invalid value .5 (strings need quotes: \".5\")"),
        ("a = 1e", "f.toml:1: a: invalid number 1e"),
        ("a = 01.5", "f.toml:1: a: leading zeros are not allowed in 01.5"),
        ("a = 1e999", "f.toml:1: a: float 1e999 is out of range"),
        ("a = 1979-05-27", "f.toml:1: a: dates and times are not supported"),
        ("a = 07:32:00", "f.toml:1: a: dates and times are not supported"),
        // Arrays and tables.
        ("a = [1, 2", "f.toml:1: a: unterminated array (multi-line arrays are not supported)"),
        ("a = [\n1]", "f.toml:1: a: unterminated array (multi-line arrays are not supported)"),
        ("a = [1 2]", "f.toml:1: a: expected ',' or ']' in the array, found '2'"),
        ("a = [,]", "f.toml:1: a: missing value"),
        ("a = { x = 1 }", "f.toml:1: a: inline tables ({...}) are not supported; use a [table] header"),
        ("a = " + String(repeating: "[", count: 40), "f.toml:1: a: arrays nested more than 32 deep"),
        // The file's own control characters are shown as code points: the error stays one line
        // (found by the config fuzzer).
        ("[alarms]\r]", "f.toml:1: unexpected text after the table header: U+000D]"),
        ("x = \u{0C}1", "f.toml:1: x: invalid value U+000C1 (strings need quotes: \"\\u000C1\")"),
        // The line counts every line, blank and comment lines included.
        ("# c\n\n[t]\n\nkey = nope", "f.toml:5: t.key: invalid value nope (strings need quotes: \"nope\")"),
    ]

    @Test(arguments: refused)
    func eachRefusalNamesTheFileTheLineAndTheKey(_ text: String, _ expected: String) {
        do {
            _ = try TOMLDocument.parse(text, file: "f.toml")
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test func valuesPrintBackAsTOML() {
        #expect(TOMLValue.string("a\"b\\c\n\u{01}").description == "\"a\\\"b\\\\c\\n\\u0001\"")
        #expect(TOMLValue.array([.integer(1), .float(2.5), .boolean(true), .float(-.infinity)]).description == "[1, 2.5, true, -inf]")
    }

    @Test func errorDescriptionsLeaveOutWhatIsUnknown() {
        #expect(ConfigError(file: "f", line: 0, message: "m").description == "f: m")
        #expect(ConfigError(file: "f", line: 0, key: "k", message: "m").description == "f: k: m")
        #expect(ConfigError(file: "f", line: 3, message: "m").description == "f:3: m")
        #expect(ConfigWarning(file: "f", line: 3, key: "k", message: "m").description == "f:3: k: m")
    }
}
