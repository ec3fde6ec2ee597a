import AlarmModel
import AlarmTime
import FoundationEssentials
import Testing

@Suite struct CivilDateTests {
    @Test func validation() {
        #expect(CivilDate(year: 2026, month: 2, day: 30) == nil)
        #expect(CivilDate(year: 2026, month: 13, day: 1) == nil)
        #expect(CivilDate(year: 2026, month: 0, day: 1) == nil)
        #expect(CivilDate(year: 2026, month: 4, day: 31) == nil)
        #expect(CivilDate(year: 2026, month: 1, day: 0) == nil)
        #expect(CivilDate(year: 2024, month: 2, day: 29) != nil)
        #expect(CivilDate(year: 1900, month: 2, day: 29) == nil)
        #expect(CivilDate(year: 2000, month: 2, day: 29) != nil)
        #expect(CivilTime(hour: 24, minute: 0) == nil)
        #expect(CivilTime(hour: 23, minute: 60) == nil)
        #expect(CivilTime(hour: 23, minute: 59, second: 60) == nil)
        #expect(CivilTime(hour: 23, minute: 59, second: 59)?.secondsSinceMidnight == 86_399)
    }

    @Test func dayNumbersAndWeekdays() {
        #expect(CivilDate(daysSinceEpoch: 0) == CivilDate(year: 1970, month: 1, day: 1))
        #expect(CivilDate(daysSinceEpoch: 0).weekday == .thursday)
        #expect(Support.day("2026-03-29").weekday == .sunday)
        #expect(Support.day("1969-12-31").weekday == .wednesday)
        #expect(Support.day("2000-01-01").weekday == .saturday)
        #expect(Support.day("1900-01-01").weekday == .monday)
        #expect(Support.day("1582-10-15").weekday == .friday)
        #expect(Support.day("2100-01-01").weekday == .friday)
        #expect(Support.day("2026-03-29").daysSinceEpoch == 20_541)
        #expect(Support.day("1969-12-31").daysSinceEpoch == -1)
        #expect(Support.day("0000-03-01").daysSinceEpoch == -719_468)
        #expect(Support.day("2000-02-29").adding(days: 366) == Support.day("2001-03-01"))
        #expect(Support.day("2026-01-01").adding(days: -1) == Support.day("2025-12-31"))
        // Round trip every day of 1560-2380, and every 37th day over 30,000 years.
        var previous = CivilDate(daysSinceEpoch: -150_001)
        for days in stride(from: -150_000, through: 150_000, by: 1) {
            let date = CivilDate(daysSinceEpoch: days)
            guard date.daysSinceEpoch == days, date > previous,
                  CivilDate(year: date.year, month: date.month, day: date.day) == date else {
                Issue.record("day \(days) -> \(date)")
                return
            }
            previous = date
        }
        for days in stride(from: -5_500_000, through: 5_500_000, by: 37) {
            let date = CivilDate(daysSinceEpoch: days)
            guard date.daysSinceEpoch == days, CivilDate(year: date.year, month: date.month, day: date.day) == date else {
                Issue.record("day \(days) -> \(date)")
                return
            }
        }
        #expect(CivilDate(daysSinceEpoch: .max).year == CivilDate.supportedYears.upperBound)
        #expect(CivilDate(daysSinceEpoch: 0).adding(days: .min).year == CivilDate.supportedYears.lowerBound)
    }

    @Test func textAndCodable() throws {
        #expect(Support.day("2026-03-29").description == "2026-03-29")
        #expect(CivilDate(year: -44, month: 3, day: 15)?.description == "-0044-03-15")
        #expect(CivilDate("-0044-03-15") == CivilDate(year: -44, month: 3, day: 15))
        #expect(CivilDate("2026-3-29") == nil)
        #expect(CivilDate("2026-02-30") == nil)
        #expect(CivilTime("07:30")?.description == "07:30:00")
        #expect(CivilTime("7:30") == nil)
        #expect(CivilTime("07:30:60") == nil)
        #expect(Support.local("2026-03-29T02:30").description == "2026-03-29T02:30:00")
        #expect(Support.local("2026-03-29T02:30") < Support.local("2026-03-29T02:31"))
        #expect(CivilTime(hour: 7, minute: 0)! < CivilTime(hour: 7, minute: 0, second: 1)!)

        struct Alarm: Codable, Equatable {
            var day: CivilDate
            var time: CivilTime
        }
        let alarm = Alarm(day: Support.day("2026-03-29"), time: CivilTime(hour: 6, minute: 45)!)
        let json = try JSONEncoder().encode(alarm)
        #expect(String(decoding: json, as: UTF8.self).contains("\"2026-03-29\""))
        #expect(try JSONDecoder().decode(Alarm.self, from: json) == alarm)
        let invalid = Data(#"{"day":"2026-02-30","time":"06:45"}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Alarm.self, from: invalid) }
    }
}
