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

    @Test func aButtonPressedAfterTheOtherMadeItsLongPressIsAPressOfItsOwn() {
        var gestures = ButtonGestures()
        _ = gestures.handle(ButtonEvent(.stop, .pressed, at: Self.at(0)))
        #expect(gestures.deadlineReached(at: Self.at(2_000)) == [.longPress(.stop)])
        _ = gestures.handle(ButtonEvent(.snooze, .pressed, at: Self.at(2_500)))
        #expect(gestures.handle(ButtonEvent(.snooze, .released, at: Self.at(2_700))) == [.shortPress(.snooze)])
        #expect(gestures.handle(ButtonEvent(.stop, .released, at: Self.at(3_000))).isEmpty)
    }

    @Test func bothHeldTogetherForTheLongPressTimeIsOneGestureCountedFromTheLaterPress() {
        var gestures = ButtonGestures()
        _ = gestures.handle(ButtonEvent(.stop, .pressed, at: Self.at(0)))
        _ = gestures.handle(ButtonEvent(.snooze, .pressed, at: Self.at(400)))
        // STOP's own long press would be due at 2 s: held with SNOOZE, it is not a long press.
        #expect(gestures.nextDeadline == Self.at(2_400))
        #expect(gestures.deadlineReached(at: Self.at(2_000)).isEmpty)
        #expect(gestures.deadlineReached(at: Self.at(2_400)) == [.bothHeld])
        #expect(gestures.deadlineReached(at: Self.at(3_000)).isEmpty)
        #expect(gestures.nextDeadline == nil)
        #expect(gestures.handle(ButtonEvent(.snooze, .released, at: Self.at(3_100))).isEmpty)
        #expect(gestures.handle(ButtonEvent(.stop, .released, at: Self.at(3_200))).isEmpty)
    }

    @Test func lettingGoOfOneOfBothEarlyIsNoGestureAtAll() {
        var gestures = ButtonGestures()
        _ = gestures.handle(ButtonEvent(.stop, .pressed, at: Self.at(0)))
        _ = gestures.handle(ButtonEvent(.snooze, .pressed, at: Self.at(500)))
        #expect(gestures.handle(ButtonEvent(.snooze, .released, at: Self.at(700))).isEmpty)
        #expect(gestures.nextDeadline == nil)
        #expect(gestures.deadlineReached(at: Self.at(5_000)).isEmpty)
        #expect(gestures.handle(ButtonEvent(.stop, .released, at: Self.at(5_100))).isEmpty)
        // The next press is a press of its own again.
        _ = gestures.handle(ButtonEvent(.snooze, .pressed, at: Self.at(6_000)))
        #expect(gestures.handle(ButtonEvent(.snooze, .released, at: Self.at(6_100))) == [.shortPress(.snooze)])
    }

    @Test func aReleaseWithoutAPressIsIgnored() {
        var gestures = ButtonGestures()
        #expect(gestures.handle(ButtonEvent(.stop, .released, at: Self.at(10))).isEmpty)
    }
}
