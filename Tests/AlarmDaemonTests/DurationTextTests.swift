import AlarmBoard
import AlarmDaemon
import AlarmTime
import TOMLConfig
import Testing

@Suite struct DurationTextTests {
    @Test(arguments: [
        ("0", Duration.zero), ("0s", .zero), ("9m", .seconds(540)), ("90s", .seconds(90)), ("1h30m", .seconds(5400)),
        ("500ms", .milliseconds(500)), ("1.5h", .seconds(5400)), ("2.5s", .milliseconds(2500)), ("1m30s250ms", .milliseconds(90_250)),
        (".5s", .milliseconds(500)),
    ])
    func peopleSpellingsParse(text: String, duration: Duration) {
        #expect(DurationText.parse(text) == duration)
    }

    @Test(arguments: ["", "9", "m", "9x", "9 m", "-9m", "1.0005s", "1.s", "1h30", "1e3s", "9M", "1000000000000000h", "999999999999h999999999999h999999999999h"])
    func nonDurationsAreRefused(text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test func formattingIsShortestAndReadsBack() {
        let cases: [(Duration, String)] = [
            (.zero, "0"), (.seconds(540), "9m"), (.seconds(5400), "1h30m"), (.milliseconds(90_250), "1m30s250ms"),
            (.milliseconds(50), "50ms"), (.seconds(86_400), "24h"),
        ]
        for (duration, text) in cases {
            #expect(DurationText.format(duration) == text)
            #expect(DurationText.parse(text) == duration)
        }
    }

    @Test func configTypeNamesTheProblem() throws {
        let text = """
            a = "15m"
            b = 0
            c = 900
            d = "15 minutes"
            e = "2h"
            f = true
            """
        var reader = ConfigReader(try TOMLDocument.parse(text, file: "d.toml"))
        let type = ConfigType<Duration>.duration(in: .zero ... .seconds(3600))
        #expect(try reader.require("a", as: type) == .seconds(900))
        #expect(try reader.require("b", as: type) == .zero)
        let messages = ["c", "d", "e", "f"].map { key -> String in
            do throws(ConfigError) {
                _ = try reader.require(key, as: type)
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(messages == [
            "d.toml:3: c: a duration needs a unit: write \"900s\" or \"900m\", in quotes",
            "d.toml:4: d: \"15 minutes\" is not a duration; write it like \"9m\", \"90s\", \"1h30m\" or \"500ms\"",
            "d.toml:5: e: must be from 0 to 1h, found \"2h\"",
            "d.toml:6: f: expected a duration from 0 to 1h, like \"9m\", \"90s\" or \"1h30m\", found boolean true",
        ])
    }
}
