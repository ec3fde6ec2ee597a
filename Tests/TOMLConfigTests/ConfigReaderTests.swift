import TOMLConfig
import Testing

@Suite struct ConfigReaderTests {
    enum Color: String, CaseIterable, Sendable {
        case red, green, lightBlue = "light-blue"
    }

    static let text = """
        title = "clock"
        count = 12
        ratio = 0.5
        whole = 2
        enabled = true
        color = "light-blue"
        tags = ["a", "b"]

        [limits]
        low = -3
        typo_key = 1

        [empty]
        [unused]
        """

    func reader() throws -> ConfigReader {
        ConfigReader(try TOMLDocument.parse(Self.text, file: "c.toml"))
    }

    @Test func typedValuesComeOutOfTheirKeys() throws {
        var reader = try reader()
        #expect(try reader.require("title", as: .string) == "clock")
        #expect(try reader.require("count", as: .integer(in: 0...12)) == 12)
        #expect(try reader.require("ratio", as: .number(in: 0...1)) == 0.5)
        #expect(try reader.require("whole", as: .number()) == 2)
        #expect(try reader.require("enabled", as: .boolean))
        #expect(try reader.require("color", as: .word(Color.self)) == .lightBlue)
        #expect(try reader.require("limits.low", as: .integer()) == -3)
        #expect(try reader.optional("absent", as: .string) == nil)
        #expect(try reader.value("absent", as: .integer(), default: 7) == 7)
        #expect(try reader.value("count", as: .integer(), default: 7) == 12)
        #expect(reader.hasTable("limits") && !reader.hasTable("nothing"))
        #expect(reader.contains("count") && !reader.contains("limits"))
        #expect(reader.line(of: "limits.low") == 10 && reader.line(of: "limits.high") == 9 && reader.line(of: "nowhere") == 0)
    }

    /// Each case reads one key one way; the error must be exactly this line.
    static let refused: [(String, @Sendable (inout ConfigReader) throws(ConfigError) -> Void)] = [
        ("c.toml:2: count: expected a string, found integer 12", { r throws(ConfigError) in _ = try r.require("count", as: .string) }),
        ("c.toml:1: title: expected an integer, found string \"clock\"", { r throws(ConfigError) in _ = try r.require("title", as: .integer()) }),
        ("c.toml:2: count: must be from 0 to 7, found 12", { r throws(ConfigError) in _ = try r.require("count", as: .integer(in: 0...7)) }),
        ("c.toml:3: ratio: expected an integer from 0 to 7, found float 0.5", { r throws(ConfigError) in _ = try r.require("ratio", as: .integer(in: 0...7)) }),
        ("c.toml:3: ratio: must be from 1.0 to 2.0, found 0.5", { r throws(ConfigError) in _ = try r.require("ratio", as: .number(in: 1...2)) }),
        ("c.toml:5: enabled: expected a number, found boolean true", { r throws(ConfigError) in _ = try r.require("enabled", as: .number()) }),
        ("c.toml:2: count: expected true or false, found integer 12", { r throws(ConfigError) in _ = try r.require("count", as: .boolean) }),
        ("c.toml:1: title: must be one of \"red\", \"green\", \"light-blue\"; found \"clock\"", { r throws(ConfigError) in _ = try r.require("title", as: .word(Color.self)) }),
        ("c.toml:2: count: expected one of \"a\", \"b\", found integer 12", { r throws(ConfigError) in _ = try r.require("count", as: .word(["a", "b"])) }),
        ("c.toml: absent: required key is missing; expected a string", { r throws(ConfigError) in _ = try r.require("absent", as: .string) }),
        ("c.toml:9: limits.high: required key is missing; expected an integer", { r throws(ConfigError) in _ = try r.require("limits.high", as: .integer()) }),
        ("c.toml:9: limits: expected an integer, found a table", { r throws(ConfigError) in _ = try r.optional("limits", as: .integer()) }),
        ("c.toml:2: count: expected a string, found integer 12", { r throws(ConfigError) in _ = try r.value("count", as: .string, default: "x") }),
    ]

    @Test(arguments: refused.indices)
    func eachRefusalNamesTheFileTheLineAndTheKey(_ index: Int) throws {
        var reader = try reader()
        do {
            try Self.refused[index].1(&reader)
            Issue.record("accepted; expected \(Self.refused[index].0)")
        } catch {
            #expect(error.description == Self.refused[index].0)
        }
    }

    @Test func keysNeverAskedForAreWarnedAboutWithTheirLines() throws {
        var reader = try reader()
        _ = try reader.require("title", as: .string)
        _ = try reader.optional("limits.low", as: .integer())
        _ = try reader.optional("limits.type_key", as: .integer())  // asked for, absent: a likely target of the typo
        _ = reader.hasTable("empty")
        #expect(reader.unknownKeys.map(\.description) == [
            "c.toml:2: count: unknown key, ignored",
            "c.toml:3: ratio: unknown key, ignored",
            "c.toml:4: whole: unknown key, ignored",
            "c.toml:5: enabled: unknown key, ignored",
            "c.toml:6: color: unknown key, ignored",
            "c.toml:7: tags: unknown key, ignored",
            "c.toml:11: limits.typo_key: unknown key, ignored (did you mean limits.type_key?)",
            "c.toml:14: unused: unknown table, ignored",
        ])
    }

    @Test func aKeyAskedForIsKnownEvenWhenItsValueWasRefused() throws {
        var reader = try reader()
        _ = try? reader.require("count", as: .string)
        #expect(!reader.unknownKeys.contains { $0.key == "count" })
    }

    @Test func theErrorHelperPointsAtTheKeyOrItsTable() throws {
        let reader = try reader()
        #expect(reader.error("limits.low", "clash").description == "c.toml:10: limits.low: clash")
        #expect(reader.error("limits.none", "clash").description == "c.toml:9: limits.none: clash")
    }

    @Test func editDistanceSuggestionsAreLimitedToCloseNames() throws {
        var reader = ConfigReader(try TOMLDocument.parse("colour = 1\nsize = 2", file: "c"))
        _ = try reader.optional("color", as: .integer())
        _ = try reader.optional("width", as: .integer())
        #expect(reader.unknownKeys.map(\.message) == ["unknown key, ignored (did you mean color?)", "unknown key, ignored"])
    }
}
