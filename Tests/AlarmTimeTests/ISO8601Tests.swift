import AlarmTime
import FoundationEssentials
import Testing

@Suite struct ISO8601Tests {
    @Test func formatsWithNumericOffsets() throws {
        let berlin = try Support.zone("Europe/Berlin")
        #expect(ISO8601.format(Support.date(1_774_747_800), in: berlin) == "2026-03-29T03:30:00+02:00")
        #expect(ISO8601.format(Support.date(0), in: .utc) == "1970-01-01T00:00:00+00:00")
        #expect(ISO8601.format(Date(timeIntervalSince1970: -0.5), in: .utc) == "1969-12-31T23:59:59+00:00")
        #expect(ISO8601.format(Support.instant("2026-11-01T06:30Z"), in: try Support.zone("America/St_Johns"))
                == "2026-11-01T03:00:00-03:30")
        // Offsets can have seconds: Berlin's local mean time (+00:53:28) until 1893, Monrovia's -00:44:30 until 1972.
        #expect(ISO8601.format(Support.instant("1890-01-01T00:00Z"), in: try Support.zone("Europe/Berlin"))
                == "1890-01-01T00:53:28+00:53:28")
        #expect(ISO8601.format(Support.instant("1971-01-01T00:00Z"), in: try Support.zone("Africa/Monrovia"))
                == "1970-12-31T23:15:30-00:44:30")
        #expect(ISO8601.formatOffset(-34_200) == "-09:30")
        #expect(ISO8601.formatOffset(0) == "+00:00")
    }

    @Test func parsesAllOffsetForms() {
        let expected = Support.date(1_774_747_800)  // 2026-03-29T01:30:00Z
        for text in ["2026-03-29T01:30:00Z", "2026-03-29T01:30Z", "2026-03-29t01:30:00z", "2026-03-29T03:30:00+02:00",
                     "2026-03-29T03:30+0200", "2026-03-29T03:30+02", "2026-03-28T23:00-02:30", "2026-03-29T01:30:00-00:00",
                     "2026-03-29T03:49:32+02:19:32"] {
            #expect(ISO8601.parse(text) == expected, "\(text)")
        }
        #expect(ISO8601.parse("2026-03-29T01:30:00.25Z") == Date(timeIntervalSince1970: 1_774_747_800.25))
        #expect(ISO8601.parse("2026-03-29T01:30:00,5Z") == Date(timeIntervalSince1970: 1_774_747_800.5))
        #expect(ISO8601.parse("2024-02-29T00:00Z") != nil)
        // A leap second reads as :59 of the same minute.
        #expect(ISO8601.parse("2016-12-31T23:59:60Z") == ISO8601.parse("2016-12-31T23:59:59Z"))
    }

    @Test(arguments: [
        "2026-13-01T00:00Z", "2026-00-01T00:00Z", "2026-02-30T00:00Z", "2025-02-29T00:00Z", "2026-04-31T00:00Z",
        "2026-03-29T25:00Z", "2026-03-29T24:00Z", "2026-03-29T12:60Z", "2026-03-29T12:00:61Z", "2026-03-29 03:30Z",
        "garbage", "", "2026-03-29T03:30", "2026-03-29T03:30:00", "2026-03-29", "2026-03-29T03:30+2", "2026-03-29T03:30+24:00",
        "2026-03-29T03:30+02:60", "2026-03-29T03:30:00.Z", "2026-3-29T03:30Z", "26-03-29T03:30Z", "2026-03-29T3:30Z",
        "2026-03-29T03:30Z ", " 2026-03-29T03:30Z", "2026-03-29T03:30ZZ", "2026-03-29T03:30+02:00:00:00", "２026-03-29T03:30Z",
    ])
    func rejects(text: String) {
        #expect(ISO8601.parse(text) == nil)
    }

    @Test(arguments: ["Europe/Berlin", "America/St_Johns", "Pacific/Chatham", "Africa/Monrovia", "UTC"])
    func roundTrips(zone: String) throws {
        let rules = try Support.zone(zone)
        for seconds in stride(from: -2_500_000_000, to: 4_000_000_000, by: 7_654_321) {
            let text = ISO8601.format(Support.date(seconds), in: rules)
            #expect(ISO8601.parse(text) == Support.date(seconds), "\(text)")
        }
    }
}
