import AlarmAppliance
import AlarmEngine
import AlarmModel
import FoundationEssentials
import Testing

/// A time nothing has confirmed (only a clock file saved at shutdown set it, after a power cut)
/// blinks as clocks blink 12:00, and a near alarm says the clock is not verified.
@Suite struct UnverifiedClockScreenTests {
    typealias T = ScreenRendererTests
    static let even = Scene.monday(6, 59, 30)
    static let odd = Scene.monday(6, 59, 31)
    static let blank16 = String(repeating: " ", count: 16)

    static func snapshot(_ now: Date, source: TimeSource?, due: Date = Scene.monday(7, 0)) -> DeviceSnapshot {
        var snapshot = Scene.snapshot(now: now, next: ("Wake up", due, nil))
        snapshot.timeSource = source
        return snapshot
    }

    @Test(arguments: [TimeSource.restored, .unset])
    func theTimeBlinksAndANearAlarmSaysTheClockIsNotVerified(source: TimeSource) {
        let shown = T.render(Self.snapshot(Self.even, source: source), on: T.small)
        #expect(T.rows(shown) == ["     06:59      ", "  ①Today 07:00  "])
        #expect(shown.nextChange == Self.odd, "a blinking time changes every second")
        let blank = T.render(Self.snapshot(Self.odd, source: source), on: T.small)
        #expect(T.rows(blank) == [Self.blank16, "Clock unverified"])
        #expect(blank.nextChange == Scene.monday(6, 59, 32))

        let tall = T.render(Self.snapshot(Self.odd, source: source), on: T.tall)
        #expect(T.rows(tall) == [T.blank20, "  Mon 23 Nov 2026   ", "Clock not verified  ", "①Today 07:00 Wake up"])
        let tallShown = T.render(Self.snapshot(Self.even, source: source), on: T.tall)
        #expect(T.rows(tallShown)[0] == "       06:59        ")
        #expect(T.rows(tallShown)[2] == "Clock not verified  ")
    }

    @Test func anAlarmMoreThanTwelveHoursAwayGetsNoWarningButTheTimeStillBlinks() {
        let due = Self.even.addingTimeInterval(13 * 3600)
        let blank = T.render(Self.snapshot(Self.odd, source: .restored, due: due), on: T.small)
        #expect(T.rows(blank)[0] == Self.blank16)
        #expect(!T.rows(blank)[1].contains("unverified"))
        #expect(!T.rows(T.render(Self.snapshot(Self.odd, source: .restored, due: due), on: T.tall))[2].contains("verified"))
    }

    @Test(arguments: [TimeSource.ntp, .rtc, .phone, nil])
    func aConfirmedOrUnknownSourceShowsTheSteadyClock(source: TimeSource?) {
        let output = T.render(Self.snapshot(Self.odd, source: source), on: T.small)
        #expect(T.rows(output) == ["     06:59      ", "  ①Today 07:00  "])
        #expect(output.nextChange == Scene.monday(7, 0), "once a minute, as ever")
    }
}
