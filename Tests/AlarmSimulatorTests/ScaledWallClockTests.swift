@testable import AlarmSimulator
import AlarmTime
import FoundationEssentials
import Synchronization
import Testing

/// The demo clock: virtual time at a multiple of real time. Two tests sleep for real, briefly,
/// since real time is what this clock is about; the arithmetic runs on an injected time source.
@Suite(.timeLimit(.minutes(5))) struct ScaledWallClockTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Real time that moves only when a test says so.
    final class RealTime: Sendable {
        private let elapsed = Mutex(Duration.zero)
        func advance(by duration: Duration) { elapsed.withLock { $0 += duration } }
        var reading: @Sendable () -> Duration { { [self] in elapsed.withLock { $0 } } }
    }

    @Test(arguments: [0, -1, Double.nan, .infinity, -.infinity])
    func refusesASpeedThatIsNotFiniteAndPositive(speed: Double) {
        #expect(throws: ScaledWallClock.InvalidSpeed.self) {
            try ScaledWallClock(start: start, speed: speed)
        }
    }

    @Test func theRefusalSaysWhatIsWrong() {
        #expect(ScaledWallClock.InvalidSpeed(speed: -2).description
            == "the simulation speed must be a finite number greater than 0, not -2.0")
    }

    @Test func wallAndMonotonicTimeBothRunAtTheSpeed() throws {
        let real = RealTime()
        let clock = try ScaledWallClock(start: start, speed: 60, realElapsed: real.reading)
        #expect(clock.now == start)
        #expect(clock.monotonicNow == .zero)

        real.advance(by: .milliseconds(1500))
        #expect(clock.now == start.addingTimeInterval(90))
        #expect(clock.monotonicNow == .seconds(90))

        real.advance(by: .seconds(60))
        #expect(clock.now == start.addingTimeInterval(3690))
        #expect(clock.monotonicNow == .seconds(3690))
    }

    @Test func aSlowClockRunsSlower() throws {
        let real = RealTime()
        let clock = try ScaledWallClock(start: start, speed: 0.5, realElapsed: real.reading)
        real.advance(by: .seconds(10))
        #expect(clock.now == start.addingTimeInterval(5))
        #expect(clock.monotonicNow == .seconds(5))
    }

    @Test func aPassedDeadlineReturnsAtOnce() async throws {
        let real = RealTime()
        let clock = try ScaledWallClock(start: start, speed: 1, realElapsed: real.reading)
        // Real time never moves here: a sleep that waited would hit the time limit.
        #expect(try await clock.sleep(until: start) == .deadlineReached)
        #expect(try await clock.sleep(until: start.addingTimeInterval(-3600)) == .deadlineReached)
    }

    @Test func cancellingASleepThrows() async throws {
        let clock = try ScaledWallClock(start: start, speed: 1)
        let sleeper = Task { try await clock.sleep(until: start.addingTimeInterval(3600)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    /// Real time: a minute at speed 600 is a tenth of a second.
    @Test func aVirtualMinuteAtSpeed600TakesATenthOfARealSecond() async throws {
        let clock = try ScaledWallClock(start: start, speed: 600)
        let realStart = ContinuousClock.now
        let deadline = clock.now.addingTimeInterval(60)
        #expect(try await clock.sleep(until: deadline) == .deadlineReached)
        let realElapsed = ContinuousClock.now - realStart
        #expect(clock.now >= deadline)
        #expect(realElapsed >= .milliseconds(90))
        // Unscaled it would take a minute; the bound leaves a loaded machine plenty of room.
        #expect(realElapsed < .seconds(30))
        // The monotonic clock moved as far as the wall clock (same readings, same speed).
        #expect(clock.monotonicNow >= .seconds(60))
    }
}
