import AlarmTime
import FoundationEssentials
import Testing

@Suite struct POSIXTimeZoneParsing {
    /// (string, instant, expected offset in seconds east)
    static let offsets: [(String, String, Int)] = [
        ("<+0330>-3:30", "2026-01-01T00:00Z", 12_600),
        ("<+0330>-3:30", "2026-07-01T00:00Z", 12_600),
        ("UTC0", "2026-07-01T00:00Z", 0),
        ("<-0930>9:30", "2026-07-01T00:00Z", -34_200),
        ("EST5EDT", "2026-01-15T12:00Z", -18_000),
        ("EST5EDT", "2026-07-01T12:00Z", -14_400),
        ("EST5EDT", "2026-03-08T06:59:59Z", -18_000),
        ("EST5EDT", "2026-03-08T07:00Z", -14_400),
        ("EST5EDT", "2026-11-01T05:59:59Z", -14_400),
        ("EST5EDT", "2026-11-01T06:00Z", -18_000),
        ("AEST-10AEDT,M10.1.0,M4.1.0/3", "2026-01-15T00:00Z", 39_600),
        ("AEST-10AEDT,M10.1.0,M4.1.0/3", "2026-04-04T15:59:59Z", 39_600),
        ("AEST-10AEDT,M10.1.0,M4.1.0/3", "2026-04-04T16:00Z", 36_000),
        ("AEST-10AEDT,M10.1.0,M4.1.0/3", "2026-10-03T15:59:59Z", 36_000),
        ("AEST-10AEDT,M10.1.0,M4.1.0/3", "2026-10-03T16:00Z", 39_600),
        // Fourth Thursday of March at 26:00 is Friday 02:00 (2026-03-27T00:00Z).
        ("IST-2IDT,M3.4.4/26,M10.5.0", "2026-03-26T23:59:59Z", 7_200),
        ("IST-2IDT,M3.4.4/26,M10.5.0", "2026-03-27T00:00Z", 10_800),
        ("IST-2IDT,M3.4.4/26,M10.5.0", "2026-10-24T22:59:59Z", 10_800),
        ("IST-2IDT,M3.4.4/26,M10.5.0", "2026-10-24T23:00Z", 7_200),
        // Negative rule times: Saturday 22:00 and 23:00 local, i.e. 01:00Z on the EU dates.
        ("<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", "2026-03-29T00:59:59Z", -10_800),
        ("<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", "2026-03-29T01:00Z", -7_200),
        ("<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", "2026-10-25T00:59:59Z", -7_200),
        ("<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", "2026-10-25T01:00Z", -10_800),
        // DST all year (RFC 8536): in force even in the hours around New Year.
        ("EST5EDT,0/0,J365/25", "2026-01-01T00:30Z", -14_400),
        ("EST5EDT,0/0,J365/25", "2026-01-01T05:00Z", -14_400),
        ("EST5EDT,0/0,J365/25", "2026-07-01T00:00Z", -14_400),
        ("EST5EDT,0/0,J365/25", "2024-12-31T23:00Z", -14_400),
        // Negative DST (Dublin's footer): "standard" IST in summer, GMT in winter.
        ("IST-1GMT0,M10.5.0,M3.5.0/1", "2026-07-01T00:00Z", 3_600),
        ("IST-1GMT0,M10.5.0,M3.5.0/1", "2026-12-01T00:00Z", 0),
        // Explicit DST offset, Julian day without leap day (J60 = Mar 1) and zero-based day 300 (Oct 27 in 2024).
        ("XST3:15XDT2:45,J60/1:30,300/23", "2024-03-01T04:44:59Z", -11_700),
        ("XST3:15XDT2:45,J60/1:30,300/23", "2024-03-01T04:45Z", -9_900),
        ("XST3:15XDT2:45,J60/1:30,300/23", "2024-10-28T01:44:59Z", -9_900),
        ("XST3:15XDT2:45,J60/1:30,300/23", "2024-10-28T01:45Z", -11_700),
        // Hours up to 167 in rule times: first Sunday of March 2026 (the 1st) + 167 h is Saturday the 7th, 23:00.
        ("AAA-1BBB,M3.1.0/167,M10.1.0/-167", "2026-03-07T21:59:59Z", 3_600),
        ("AAA-1BBB,M3.1.0/167,M10.1.0/-167", "2026-03-07T22:00Z", 7_200),
        ("AAA-1BBB,M3.1.0/167,M10.1.0/-167", "2026-09-26T22:59:59Z", 7_200),
        ("AAA-1BBB,M3.1.0/167,M10.1.0/-167", "2026-09-26T23:00Z", 3_600),
    ]

    @Test("valid strings give the expected offsets", arguments: offsets)
    func validOffset(string: String, at instant: String, expected: Int) throws {
        let rules = try TimeZoneRules(posix: string)
        #expect(rules.identifier == string)
        #expect(rules.offset(at: Support.instant(instant)) == expected, "\(string) at \(instant)")
    }

    @Test func transitionsOfPOSIXRules() throws {
        let sydney = try TimeZoneRules(posix: "AEST-10AEDT,M10.1.0,M4.1.0/3")
        #expect(sydney.nextTransition(after: Support.instant("2026-01-01T00:00Z")) == Support.instant("2026-04-04T16:00Z"))
        #expect(sydney.nextTransition(after: Support.instant("2026-04-04T16:00Z")) == Support.instant("2026-10-03T16:00Z"))
        #expect(try TimeZoneRules(posix: "<+0330>-3:30").nextTransition(after: Support.instant("2026-01-01T00:00Z")) == nil)
        // DST all year never changes the offset, and the offset never changes for equal offsets either.
        #expect(try TimeZoneRules(posix: "EST5EDT,0/0,J365/25").nextTransition(after: Support.instant("2026-01-01T00:00Z")) == nil)
        #expect(try TimeZoneRules(posix: "AAA3BBB3,M3.2.0,M11.1.0").nextTransition(after: Support.date(0)) == nil)
    }

    static let invalid = [
        "", "EST", "ES5", "5", "EST+", "EST5EDT,", "EST5EDT,M3.2.0", "EST5EDT,M3.2.0,", "EST5EDT,M13.1.0,M11.1.0",
        "EST5EDT,M3.6.0,M11.1.0", "EST5EDT,M3.0.0,M11.1.0", "EST5EDT,M3.2.7,M11.1.0", "EST5EDT,J0,J365",
        "EST5EDT,J366,J365", "EST5EDT,366,J365", "EST25", "EST5:60", "EST5:00:60", "<+03", "<ab>3", "<+0_3>-3",
        "EST5EDT,M3.2.0/168,M11.1.0", "EST5EDT,M3.2.0,M11.1.0x", "EST5EDT,M3.2.0/,M11.1.0", "EST5 EDT",
        "CET-1CEST,M3.5.0,M10.5.0/3,M1.1.1", "EST5EDT4,", "Europe/Berlin",
    ]

    @Test("invalid strings are rejected with the string in the message", arguments: invalid)
    func invalidString(string: String) {
        #expect {
            _ = try TimeZoneRules(posix: string)
        } throws: { error in
            guard case .malformedPOSIXTZ(let reported, let reason) = error as? TimeZoneError else { return false }
            return reported == string && !reason.isEmpty && "\(error)".contains("\"\(string)\"")
        }
    }
}
