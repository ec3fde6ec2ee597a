import AlarmModel
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Testing

@Suite struct NextOccurrenceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var zone: String
        var time: String
        var weekdays: Set<Locale.Weekday>?
        var after: String
        var from: String?
        var day: String
        var instant: String
        var testDescription: String { "\(zone) \(time) after \(after)" }
    }

    static let cases: [Case] = [
        // One-time into Berlin's spring gap: fires 02:30 + 1 h.
        Case(zone: "Europe/Berlin", time: "02:30", weekdays: nil, after: "2026-03-28T12:00+01:00", from: nil,
             day: "2026-03-29", instant: "2026-03-29T03:30:00+02:00"),
        Case(zone: "Europe/Berlin", time: "02:30", weekdays: [.sunday], after: "2026-03-22T03:00+01:00", from: nil,
             day: "2026-03-29", instant: "2026-03-29T03:30:00+02:00"),
        // Autumn: the first of the two 02:30s, and never the second.
        Case(zone: "Europe/Berlin", time: "02:30", weekdays: [.sunday], after: "2026-10-18T12:00+02:00", from: nil,
             day: "2026-10-25", instant: "2026-10-25T02:30:00+02:00"),
        Case(zone: "Europe/Berlin", time: "02:30", weekdays: nil, after: "2026-10-25T02:29:59+02:00", from: nil,
             day: "2026-10-25", instant: "2026-10-25T02:30:00+02:00"),
        Case(zone: "Europe/Berlin", time: "02:30", weekdays: nil, after: "2026-10-25T02:30:00+02:00", from: nil,
             day: "2026-10-26", instant: "2026-10-26T02:30:00+01:00"),
        Case(zone: "Europe/Berlin", time: "07:00", weekdays: [.monday, .wednesday], after: "2026-01-01T00:00Z", from: "2026-04-01",
             day: "2026-04-01", instant: "2026-04-01T07:00:00+02:00"),
        Case(zone: "Europe/Berlin", time: "07:00", weekdays: nil, after: "2026-03-29T07:00+02:00", from: "2020-01-01",
             day: "2026-03-30", instant: "2026-03-30T07:00:00+02:00"),
        Case(zone: "Europe/Berlin", time: "07:00", weekdays: [], after: "2026-03-29T07:00+02:00", from: nil,
             day: "2026-03-30", instant: "2026-03-30T07:00:00+02:00"),
        Case(zone: "Europe/Dublin", time: "01:30", weekdays: [.sunday], after: "2026-03-22T12:00Z", from: nil,
             day: "2026-03-29", instant: "2026-03-29T02:30:00+01:00"),
        Case(zone: "America/New_York", time: "02:30", weekdays: nil, after: "2026-03-01T00:00Z", from: "2026-03-08",
             day: "2026-03-08", instant: "2026-03-08T03:30:00-04:00"),
        Case(zone: "America/New_York", time: "01:30", weekdays: nil, after: "2026-11-01T01:30-04:00", from: nil,
             day: "2026-11-02", instant: "2026-11-02T01:30:00-05:00"),
        Case(zone: "America/St_Johns", time: "01:30", weekdays: [.sunday], after: "2026-10-30T00:00Z", from: nil,
             day: "2026-11-01", instant: "2026-11-01T01:30:00-02:30"),
        Case(zone: "Australia/Lord_Howe", time: "02:15", weekdays: nil, after: "2026-10-03T12:00+10:30", from: nil,
             day: "2026-10-04", instant: "2026-10-04T02:45:00+11:00"),
        Case(zone: "Australia/Lord_Howe", time: "01:45", weekdays: [.sunday], after: "2026-03-30T00:00Z", from: nil,
             day: "2026-04-05", instant: "2026-04-05T01:45:00+11:00"),
        Case(zone: "Pacific/Chatham", time: "03:00", weekdays: [.sunday], after: "2026-09-20T12:00+12:45", from: nil,
             day: "2026-09-27", instant: "2026-09-27T04:00:00+13:45"),
        Case(zone: "Pacific/Auckland", time: "02:30", weekdays: [.saturday, .sunday], after: "2026-09-26T02:30+12:00", from: nil,
             day: "2026-09-27", instant: "2026-09-27T03:30:00+13:00"),
        Case(zone: "Pacific/Auckland", time: "09:00", weekdays: nil, after: "2026-01-01T00:00Z", from: nil,
             day: "2026-01-02", instant: "2026-01-02T09:00:00+13:00"),
        Case(zone: "Asia/Kolkata", time: "06:00", weekdays: nil, after: "2026-01-01T20:00Z", from: nil,
             day: "2026-01-02", instant: "2026-01-02T06:00:00+05:30"),
        // The skipped 2011-12-30 fires at the same instant as 2011-12-31 would; only once.
        Case(zone: "Pacific/Apia", time: "12:00", weekdays: nil, after: "2011-12-29T13:00-10:00", from: nil,
             day: "2011-12-30", instant: "2011-12-31T12:00:00+14:00"),
        Case(zone: "Pacific/Apia", time: "12:00", weekdays: nil, after: "2011-12-31T12:00+14:00", from: nil,
             day: "2012-01-01", instant: "2012-01-01T12:00:00+14:00"),
    ]

    @Test(arguments: cases)
    func occurrence(_ row: Case) throws {
        let rules = try Support.zone(row.zone)
        let result = nextOccurrence(of: try #require(CivilTime(row.time)), weekdays: row.weekdays,
                                    after: Support.instant(row.after), onOrAfter: row.from.map(Support.day), in: rules)
        #expect(result.day == Support.day(row.day))
        #expect(ISO8601.format(result.instant, in: rules) == row.instant)
    }

    /// Against a brute-force scan: the result is after `after`, and no earlier matching day qualifies.
    @Test(arguments: ["Europe/Berlin", "Australia/Lord_Howe", "Pacific/Apia", "America/Sao_Paulo", "Pacific/Kwajalein"])
    func agreesWithBruteForce(zone: String) throws {
        let rules = try Support.zone(zone)
        var generator = SeededRandomNumberGenerator(seed: UInt64(zone.utf8.count))
        let transitions = rules.transitions(from: 0, to: 2_000_000_000)
        for round in 0..<400 {
            let base = transitions.isEmpty ? 1_700_000_000 : transitions[round % transitions.count]
            let after = base + Int.random(in: -200_000...200_000, using: &generator)
            let time = CivilTime(secondsSinceMidnight: Int.random(in: 0..<96, using: &generator) * 900)
            let weekdays: Set<Locale.Weekday>? = round % 3 == 0 ? nil : [Locale.Weekday.sunday, .wednesday]
            let result = nextOccurrence(of: time, weekdays: weekdays, after: Support.date(after), onOrAfter: nil, in: rules)
            #expect(result.instant > Support.date(after))
            #expect(weekdays?.contains(result.day.weekday) ?? true)
            #expect(result.instant == rules.instant(for: LocalDateTime(date: result.day, time: time)))
            var day = rules.localDateTime(at: Support.date(after)).date.adding(days: -3)
            while day < result.day {
                if weekdays?.contains(day.weekday) ?? true {
                    #expect(rules.instant(for: LocalDateTime(date: day, time: time)) <= Support.date(after), "\(zone) \(day) \(time)")
                }
                day = day.adding(days: 1)
            }
        }
    }
}
