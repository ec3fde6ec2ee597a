import AlarmHardware
import Testing

@Suite struct RetryBackoffTests {
    @Test func theWaitDoublesAfterEachFailureUpToTheLimit() {
        let backoff = RetryBackoff(first: .seconds(10), limit: .seconds(300))
        let waits = (1...8).map { backoff.delay(afterFailures: $0) }
        #expect(waits == [10, 20, 40, 80, 160, 300, 300, 300].map { Duration.seconds($0) })
        #expect(backoff.delay(afterFailures: 10_000) == .seconds(300))
    }

    @Test func aLimitBelowTheFirstWaitKeepsTheWaitFixed() {
        let backoff = RetryBackoff(first: .seconds(10), limit: .seconds(1))
        #expect(backoff.limit == .seconds(10))
        #expect(backoff.delay(afterFailures: 1) == .seconds(10))
        #expect(backoff.delay(afterFailures: 5) == .seconds(10))
    }
}

@Suite struct AbsentPartsTests {
    @Test func absentButtonsNeverPressAndTheirStreamHasEnded() async {
        var events = AbsentButtonInput().events().makeAsyncIterator()
        #expect(await events.next() == nil)
    }

    @Test func anAbsentLEDAcceptsEveryPatternAndHasNoColour() async throws {
        let led = AbsentIndicator()
        try await led.show(.blink(.white, on: .milliseconds(250), off: .milliseconds(250)))
        try await led.show(.off)
        #expect(!led.hasColor)
    }
}
