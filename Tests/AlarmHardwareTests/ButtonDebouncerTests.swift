import AlarmHardware
import Testing

@Suite struct ButtonDebouncerTests {
    static func ms(_ value: Int) -> Duration { .milliseconds(value) }

    @Test func chatterAfterAPressAndAReleaseGivesExactlyOnePressAndOneRelease() {
        var debouncer = ButtonDebouncer()
        let raw: [(ButtonEvent.Edge, Int)] = [
            (.pressed, 0), (.released, 2), (.pressed, 3), (.released, 5), (.pressed, 7),   // press bounce
            (.released, 200), (.pressed, 201), (.released, 204),                           // release bounce
        ]
        let clean = raw.compactMap { debouncer.accept(ButtonEvent(.stop, $0.0, at: Self.ms($0.1))) }
        #expect(clean == [ButtonEvent(.stop, .pressed, at: Self.ms(0)), ButtonEvent(.stop, .released, at: Self.ms(200))])
    }

    @Test func aTapShorterThanTheWindowIsConfirmedAsReleasedByReadingTheLine() {
        var debouncer = ButtonDebouncer()
        #expect(debouncer.accept(ButtonEvent(.snooze, .pressed, at: Self.ms(1_000))) != nil)
        #expect(debouncer.accept(ButtonEvent(.snooze, .released, at: Self.ms(1_020))) == nil)
        #expect(debouncer.confirmationDeadline(for: .snooze) == Self.ms(1_030))
        #expect(debouncer.confirm(.snooze, level: .released, at: Self.ms(1_030)) == ButtonEvent(.snooze, .released, at: Self.ms(1_030)))
        #expect(debouncer.confirmationDeadline(for: .snooze) == nil)
    }

    @Test func aBounceThatSettlesOnTheAcceptedLevelNeedsNoCorrection() {
        var debouncer = ButtonDebouncer()
        _ = debouncer.accept(ButtonEvent(.stop, .pressed, at: Self.ms(0)))
        _ = debouncer.accept(ButtonEvent(.stop, .released, at: Self.ms(3)))
        _ = debouncer.accept(ButtonEvent(.stop, .pressed, at: Self.ms(4)))
        #expect(debouncer.confirm(.stop, level: .pressed, at: Self.ms(30)) == nil)
    }

    @Test func buttonsAreDebouncedIndependently() {
        var debouncer = ButtonDebouncer()
        #expect(debouncer.accept(ButtonEvent(.stop, .pressed, at: Self.ms(0))) != nil)
        #expect(debouncer.accept(ButtonEvent(.snooze, .pressed, at: Self.ms(1))) != nil)
    }

    @Test func aRepeatedReleaseIsNotAnEventButARepeatedPressIsANewPress() {
        var debouncer = ButtonDebouncer()
        #expect(debouncer.accept(ButtonEvent(.stop, .released, at: Self.ms(0))) == nil)
        #expect(debouncer.accept(ButtonEvent(.stop, .pressed, at: Self.ms(100))) != nil)
        // Inside the window it is bounce; after it, the release in between was lost.
        #expect(debouncer.accept(ButtonEvent(.stop, .pressed, at: Self.ms(110))) == nil)
        #expect(debouncer.accept(ButtonEvent(.stop, .pressed, at: Self.ms(200))) != nil)
        #expect(debouncer.accept(ButtonEvent(.stop, .released, at: Self.ms(300))) != nil)
        #expect(debouncer.accept(ButtonEvent(.stop, .released, at: Self.ms(400))) == nil)
    }
}
