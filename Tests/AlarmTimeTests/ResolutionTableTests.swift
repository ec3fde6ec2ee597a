import AlarmTime
import FoundationEssentials
import Testing

/// Hand-written DST cases in the style of systemd's test-calendarspec: zone, wall time, expectation.
/// Expectations: "=INSTANT" unique, "skip SHIFTED @TRANSITION", "twice EARLIER LATER".
@Suite struct ResolutionTable {
    static let rows: [(zone: String, local: String, expected: String)] = [
        // Berlin 2026: 02:00 CET -> 03:00 CEST on Mar 29, 03:00 CEST -> 02:00 CET on Oct 25.
        ("Europe/Berlin", "2026-03-29T01:59", "=2026-03-29T01:59:00+01:00"),
        ("Europe/Berlin", "2026-03-29T02:00", "skip 2026-03-29T03:00:00+02:00 @2026-03-29T01:00:00Z"),
        ("Europe/Berlin", "2026-03-29T02:30", "skip 2026-03-29T03:30:00+02:00 @2026-03-29T01:00:00Z"),
        ("Europe/Berlin", "2026-03-29T02:59:59", "skip 2026-03-29T03:59:59+02:00 @2026-03-29T01:00:00Z"),
        ("Europe/Berlin", "2026-03-29T03:00", "=2026-03-29T03:00:00+02:00"),
        ("Europe/Berlin", "2026-10-25T01:59", "=2026-10-25T01:59:00+02:00"),
        ("Europe/Berlin", "2026-10-25T02:00", "twice 2026-10-25T02:00:00+02:00 2026-10-25T02:00:00+01:00"),
        ("Europe/Berlin", "2026-10-25T02:30", "twice 2026-10-25T02:30:00+02:00 2026-10-25T02:30:00+01:00"),
        ("Europe/Berlin", "2026-10-25T02:59:59", "twice 2026-10-25T00:59:59Z 2026-10-25T01:59:59Z"),
        ("Europe/Berlin", "2026-10-25T03:00", "=2026-10-25T03:00:00+01:00"),
        // Dublin: IST is "standard" and GMT the negative "DST" in the source; only offsets matter.
        ("Europe/Dublin", "2026-03-29T00:59", "=2026-03-29T00:59:00+00:00"),
        ("Europe/Dublin", "2026-03-29T01:00", "skip 2026-03-29T02:00:00+01:00 @2026-03-29T01:00:00Z"),
        ("Europe/Dublin", "2026-03-29T01:30", "skip 2026-03-29T02:30:00+01:00 @2026-03-29T01:00:00Z"),
        ("Europe/Dublin", "2026-03-29T02:00", "=2026-03-29T02:00:00+01:00"),
        ("Europe/Dublin", "2026-10-25T00:59", "=2026-10-25T00:59:00+01:00"),
        ("Europe/Dublin", "2026-10-25T01:00", "twice 2026-10-25T01:00:00+01:00 2026-10-25T01:00:00+00:00"),
        ("Europe/Dublin", "2026-10-25T01:30", "twice 2026-10-25T00:30:00Z 2026-10-25T01:30:00Z"),
        ("Europe/Dublin", "2026-10-25T02:00", "=2026-10-25T02:00:00+00:00"),
        ("Europe/Dublin", "2026-07-01T12:00", "=2026-07-01T11:00:00Z"),
        // New York 2026: Mar 8 02:00 EST -> 03:00 EDT, Nov 1 02:00 EDT -> 01:00 EST.
        ("America/New_York", "2026-03-08T01:59", "=2026-03-08T01:59:00-05:00"),
        ("America/New_York", "2026-03-08T02:00", "skip 2026-03-08T03:00:00-04:00 @2026-03-08T07:00:00Z"),
        ("America/New_York", "2026-03-08T02:30", "skip 2026-03-08T03:30:00-04:00 @2026-03-08T07:00:00Z"),
        ("America/New_York", "2026-03-08T03:00", "=2026-03-08T03:00:00-04:00"),
        ("America/New_York", "2026-11-01T00:59", "=2026-11-01T00:59:00-04:00"),
        ("America/New_York", "2026-11-01T01:00", "twice 2026-11-01T05:00:00Z 2026-11-01T06:00:00Z"),
        ("America/New_York", "2026-11-01T01:30", "twice 2026-11-01T01:30:00-04:00 2026-11-01T01:30:00-05:00"),
        ("America/New_York", "2026-11-01T02:00", "=2026-11-01T02:00:00-05:00"),
        // Auckland 2026 (southern): Apr 5 03:00 NZDT -> 02:00 NZST, Sep 27 02:00 NZST -> 03:00 NZDT.
        ("Pacific/Auckland", "2026-04-05T01:59", "=2026-04-05T01:59:00+13:00"),
        ("Pacific/Auckland", "2026-04-05T02:00", "twice 2026-04-04T13:00:00Z 2026-04-04T14:00:00Z"),
        ("Pacific/Auckland", "2026-04-05T02:30", "twice 2026-04-05T02:30:00+13:00 2026-04-05T02:30:00+12:00"),
        ("Pacific/Auckland", "2026-04-05T03:00", "=2026-04-05T03:00:00+12:00"),
        ("Pacific/Auckland", "2026-09-27T01:59", "=2026-09-27T01:59:00+12:00"),
        ("Pacific/Auckland", "2026-09-27T02:00", "skip 2026-09-27T03:00:00+13:00 @2026-09-26T14:00:00Z"),
        ("Pacific/Auckland", "2026-09-27T02:30", "skip 2026-09-27T03:30:00+13:00 @2026-09-26T14:00:00Z"),
        ("Pacific/Auckland", "2026-09-27T03:00", "=2026-09-27T03:00:00+13:00"),
        // Lord Howe: +10:30 / +11, a 30-minute shift; 02:00 -> 02:30 in October, 02:00 -> 01:30 in April.
        ("Australia/Lord_Howe", "2026-04-05T01:29", "=2026-04-05T01:29:00+11:00"),
        ("Australia/Lord_Howe", "2026-04-05T01:30", "twice 2026-04-04T14:30:00Z 2026-04-04T15:00:00Z"),
        ("Australia/Lord_Howe", "2026-04-05T01:45", "twice 2026-04-05T01:45:00+11:00 2026-04-05T01:45:00+10:30"),
        ("Australia/Lord_Howe", "2026-04-05T02:00", "=2026-04-05T02:00:00+10:30"),
        ("Australia/Lord_Howe", "2026-10-04T01:59", "=2026-10-04T01:59:00+10:30"),
        ("Australia/Lord_Howe", "2026-10-04T02:00", "skip 2026-10-04T02:30:00+11:00 @2026-10-03T15:30:00Z"),
        ("Australia/Lord_Howe", "2026-10-04T02:15", "skip 2026-10-04T02:45:00+11:00 @2026-10-03T15:30:00Z"),
        ("Australia/Lord_Howe", "2026-10-04T02:30", "=2026-10-04T02:30:00+11:00"),
        // Chatham: +12:45 / +13:45, changes at 02:45 standard / 03:45 daylight time.
        ("Pacific/Chatham", "2026-04-05T02:44", "=2026-04-05T02:44:00+13:45"),
        ("Pacific/Chatham", "2026-04-05T03:00", "twice 2026-04-04T13:15:00Z 2026-04-04T14:15:00Z"),
        ("Pacific/Chatham", "2026-04-05T03:45", "=2026-04-05T03:45:00+12:45"),
        ("Pacific/Chatham", "2026-09-27T02:44", "=2026-09-27T02:44:00+12:45"),
        ("Pacific/Chatham", "2026-09-27T02:45", "skip 2026-09-27T03:45:00+13:45 @2026-09-26T14:00:00Z"),
        ("Pacific/Chatham", "2026-09-27T03:00", "skip 2026-09-27T04:00:00+13:45 @2026-09-26T14:00:00Z"),
        ("Pacific/Chatham", "2026-09-27T03:45", "=2026-09-27T03:45:00+13:45"),
        // St John's: -03:30 / -02:30.
        ("America/St_Johns", "2026-03-08T01:59", "=2026-03-08T01:59:00-03:30"),
        ("America/St_Johns", "2026-03-08T02:30", "skip 2026-03-08T03:30:00-02:30 @2026-03-08T05:30:00Z"),
        ("America/St_Johns", "2026-03-08T03:00", "=2026-03-08T03:00:00-02:30"),
        ("America/St_Johns", "2026-11-01T01:30", "twice 2026-11-01T04:00:00Z 2026-11-01T05:00:00Z"),
        ("America/St_Johns", "2026-11-01T02:00", "=2026-11-01T02:00:00-03:30"),
        // Whole days skipped: Apia crossed the date line (-10 -> +14), Kwajalein went from -12 to +12.
        ("Pacific/Apia", "2011-12-29T23:59", "=2011-12-29T23:59:00-10:00"),
        ("Pacific/Apia", "2011-12-30T00:00", "skip 2011-12-31T00:00:00+14:00 @2011-12-30T10:00:00Z"),
        ("Pacific/Apia", "2011-12-30T12:00", "skip 2011-12-31T12:00:00+14:00 @2011-12-30T10:00:00Z"),
        ("Pacific/Apia", "2011-12-31T00:00", "=2011-12-31T00:00:00+14:00"),
        ("Pacific/Kwajalein", "1993-08-21T09:00", "skip 1993-08-21T21:00:00Z @1993-08-21T12:00:00Z"),
        ("Pacific/Kwajalein", "1993-08-22T00:00", "=1993-08-22T00:00:00+12:00"),
        ("UTC", "2026-03-29T02:30", "=2026-03-29T02:30:00Z"),
    ]

    static func expectation(_ text: String) -> LocalTimeResolution {
        let words = text.split(separator: " ").map(String.init)
        switch words[0] {
        case "skip": return .skipped(shifted: Support.instant(words[1]), transition: Support.instant(String(words[2].dropFirst())))
        case "twice": return .repeated(earlier: Support.instant(words[1]), later: Support.instant(words[2]))
        default: return .unique(Support.instant(String(words[0].dropFirst())))
        }
    }

    @Test("resolve matches the hand-written table", arguments: rows)
    func row(zone: String, local: String, expected: String) throws {
        let rules = try Support.zone(zone)
        let resolution = rules.resolve(Support.local(local))
        let wanted = Self.expectation(expected)
        #expect(resolution == wanted, "\(zone) \(local)")
        #expect(rules.instant(for: Support.local(local)) == wanted.alarmInstant)
    }

    @Test func alarmInstantPolicy() {
        let early = Support.date(100), late = Support.date(200)
        #expect(LocalTimeResolution.unique(early).alarmInstant == early)
        #expect(LocalTimeResolution.skipped(shifted: late, transition: early).alarmInstant == late)
        #expect(LocalTimeResolution.repeated(earlier: early, later: late).alarmInstant == early)
    }
}
