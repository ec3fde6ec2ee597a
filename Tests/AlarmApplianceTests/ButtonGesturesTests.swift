import AlarmAppliance
import AlarmHardware
import Testing

@Suite struct ButtonGesturesTests {
    static func at(_ milliseconds: Int) -> Duration { .milliseconds(milliseconds) }

    @Test func aQuickPressIsAShortPressOnRelease() {
        var gestures = ButtonGestures()
        #expect(gestures.handle(ButtonEvent(.snooze, .pressed, at: Self.at(0))).isEmpty)
        #expect(gestures.nextDeadline == Self.at(2_000))
        #expect(gestures.handle(ButtonEvent(.snooze, .released, at: Self.at(150))) == [.shortPress(.snooze)])
        #expect(gestures.nextDeadline == nil)
    }

    @Test func holdingTwoSecondsIsALongPressReportedOnceWhileHeld() {
        var gestures = ButtonGestures()
        _ = gestures.handle(ButtonEvent(.stop, .pressed, at: Self.at(1_000)))
        #expect(gestures.deadlineReached(at: Self.at(2_999)).isEmpty)
        #expect(gestures.deadlineReached(at: Self.at(3_000)) == [.longPress(.stop)])
        #expect(gestures.deadlineReached(at: Self.at(3_500)).isEmpty)
        #expect(gestures.nextDeadline == nil)
        #expect(gestures.handle(ButtonEvent(.stop, .released, at: Self.at(4_000))).isEmpty)
    }

    @Test func aLongHoldWhoseDeadlineWasMissedIsStillALongPressNotAShortOne() {
        var gestures = ButtonGestures()
        _ = gestures.handle(ButtonEvent(.stop, .pressed, at: Self.at(0)))
        #expect(gestures.handle(ButtonEvent(.stop, .released, at: Self.at(2_500))) == [.longPress(.stop)])
    }

    @Test func bothButtonsAreTrackedSeparately() {
        var gestures = ButtonGestures()
        _ = gestures.handle(ButtonEvent(.stop, .pressed, at: Self.at(0)))
        _ = gestures.handle(ButtonEvent(.snooze, .pressed, at: Self.at(500)))
        #expect(gestures.handle(ButtonEvent(.snooze, .released, at: Self.at(700))) == [.shortPress(.snooze)])
        #expect(gestures.deadlineReached(at: Self.at(2_000)) == [.longPress(.stop)])
    }

    @Test func aReleaseWithoutAPressIsIgnored() {
        var gestures = ButtonGestures()
        #expect(gestures.handle(ButtonEvent(.stop, .released, at: Self.at(10))).isEmpty)
    }
}
