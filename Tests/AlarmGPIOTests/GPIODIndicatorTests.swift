@testable import AlarmGPIO
import AlarmHardware
import Glibc
import Testing

/// GPIODIndicator's thread against ``FakeGPIO`` and ``ManualGPIOClock``: every level written is
/// recorded with the manual time, so patterns are checked step by step with no real waiting.
@Suite(.timeLimit(.minutes(5)))
struct GPIODIndicatorTests {
    let clock = ManualGPIOClock(now: .seconds(10))
    let gpio: FakeGPIO

    init() {
        gpio = FakeGPIO(clock: clock, kernelDebounce: false)
    }

    func led(_ configuration: GPIODIndicator.Configuration = .test) throws -> GPIODIndicator {
        try GPIODIndicator(configuration: configuration, access: gpio, clock: clock)
    }

    /// An LED on GPIO22 whose line has been requested, and the chip's events from then on.
    func requestedLED() async throws -> (GPIODIndicator, AsyncStream<FakeGPIO.Event>.Iterator) {
        gpio.addChip(lines: ["GPIO22"])
        var record = gpio.events().makeAsyncIterator()
        let led = try led()
        _ = await record.next()
        return (led, record)
    }

    @Test func blinkTogglesAtItsDeadlines() async throws {
        gpio.addChip(lines: ["GPIO22"])
        var record = gpio.events().makeAsyncIterator()
        let led = try led()
        #expect(led.hasColor == false)
        #expect(await record.next() == .requestedOutput(line: "GPIO22", activeLow: false, high: false))
        try await led.show(.blink(.white, on: .milliseconds(500), off: .milliseconds(250)))
        #expect(await record.next() == .set(line: "GPIO22", high: true, at: .at(10)))
        clock.advance(to: .at(10.5))
        #expect(await record.next() == .set(line: "GPIO22", high: false, at: .at(10.5)))
        clock.advance(to: .at(10.75))
        #expect(await record.next() == .set(line: "GPIO22", high: true, at: .at(10.75)))
        clock.advance(to: .at(11.25))
        #expect(await record.next() == .set(line: "GPIO22", high: false, at: .at(11.25)))
        await led.close()
        #expect(await record.next() == .released(line: "GPIO22"))  // already dark: no extra write
    }

    @Test func lateWakeUpKeepsThePatternsPhase() async throws {
        gpio.addChip(lines: ["GPIO22"])
        var record = gpio.events().makeAsyncIterator()
        let led = try led()
        #expect(await record.next() == .requestedOutput(line: "GPIO22", activeLow: false, high: false))
        try await led.show(.blink(.white, on: .milliseconds(500), off: .milliseconds(250)))
        #expect(await record.next() == .set(line: "GPIO22", high: true, at: .at(10)))
        // Woken 1.6 s in (two cycles and 100 ms): on again, so nothing to write; the next change
        // is where the pattern says (12.0), not 500 ms after the late wake-up.
        clock.advance(to: .at(11.6))
        await clock.waitForSleepers()
        clock.advance(to: .at(12.0))
        #expect(await record.next() == .set(line: "GPIO22", high: false, at: .at(12.0)))
        await led.close()
    }

    @Test func flashesAreShortThenPause() async throws {
        var (led, record) = try await requestedLED()
        try await led.show(.flashes(.white, count: 3, pause: .seconds(1)))
        let expected: [(Bool, Double)] = [
            (true, 10), (false, 10.15), (true, 10.3), (false, 10.45), (true, 10.6), (false, 10.75), (true, 11.75),
            (false, 11.9),
        ]
        for (high, time) in expected {
            clock.advance(to: .at(time))
            #expect(await record.next() == .set(line: "GPIO22", high: high, at: .at(time)))
        }
        await led.close()
    }

    @Test func breatheIsASlowBlinkOnAPlainLED() async throws {
        var (led, record) = try await requestedLED()
        try await led.show(.breathe(.white, period: .seconds(4)))
        for (high, time) in [(true, 10.0), (false, 12.0), (true, 14.0), (false, 16.0)] {
            clock.advance(to: .at(time))
            #expect(await record.next() == .set(line: "GPIO22", high: high, at: .at(time)))
        }
        await led.close()
    }

    @Test func steadyIsWrittenOnceAndHeldUntilTheNextShow() async throws {
        var (led, record) = try await requestedLED()
        try await led.show(.steady(.white))
        #expect(await record.next() == .set(line: "GPIO22", high: true, at: .at(10)))
        await clock.waitForSleepers()
        clock.advance(to: .at(3_610))
        // An hour later the next write is the next show's: nothing was written in between.
        try await led.show(.steady(IndicatorColor(red: 0, green: 0, blue: 0)))  // black: dark
        #expect(await record.next() == .set(line: "GPIO22", high: false, at: .at(3_610)))
        try await led.show(.off)  // already dark: written all the same, to check the line
        #expect(await record.next() == .set(line: "GPIO22", high: false, at: .at(3_610)))
        try await led.show(.steady(.white))
        #expect(await record.next() == .set(line: "GPIO22", high: true, at: .at(3_610)))
        await led.close()
        #expect(await record.next() == .set(line: "GPIO22", high: false, at: .at(3_610)))
        #expect(await record.next() == .released(line: "GPIO22"))
    }

    @Test func activeLowLineIsDrivenLowToLight() async throws {
        gpio.addChip(lines: ["GPIO22"])
        var record = gpio.events().makeAsyncIterator()
        var configuration = GPIODIndicator.Configuration.test
        configuration.activeLow = true
        let led = try led(configuration)
        #expect(await record.next() == .requestedOutput(line: "GPIO22", activeLow: true, high: true))
        try await led.show(.steady(.white))
        #expect(await record.next() == .set(line: "GPIO22", high: false, at: .at(10)))
        await led.close()
        #expect(await record.next() == .set(line: "GPIO22", high: true, at: .at(10)))
    }

    @Test func missingChipFailsShowByNameKeepsThePatternAndRetries() async throws {
        var record = gpio.events().makeAsyncIterator()
        let led = try led()
        await #expect(throws: HardwareError(.deviceUnavailable, device: "gpiochip0", errno: ENOENT)) {
            try await led.show(.steady(.white))
        }
        #expect(led.status == .failed(HardwareError(.deviceUnavailable, device: "gpiochip0", errno: ENOENT)))

        gpio.addChip(lines: ["GPIO22"])
        clock.advance(by: .seconds(5))
        // The pattern asked for while the line was missing is shown once it is back.
        #expect(await record.next() == .requestedOutput(line: "GPIO22", activeLow: false, high: true))
        await led.awaitStatus { $0 == .ready }
        await led.close()
    }

    @Test func busyLineFailsShowAsBusyNamingIt() async throws {
        gpio.addChip(lines: ["GPIO21", "GPIO22"])
        gpio.setBusy("GPIO22", true)
        let led = try led()
        await #expect(throws: HardwareError(.busy, device: "gpiochip0 line GPIO22 (LED)", errno: EBUSY)) {
            try await led.show(.steady(.white))
        }
        await led.close()
    }

    @Test func lineLostInUseIsReleasedAndRequestedAgainWithTheCurrentPattern() async throws {
        var (led, record) = try await requestedLED()
        try await led.show(.steady(.white))
        #expect(await record.next() == .set(line: "GPIO22", high: true, at: .at(10)))

        // The chip goes; the next show writes (even the level already there) and so notices.
        gpio.removeChip()
        await #expect(throws: HardwareError(.deviceUnavailable, device: "gpiochip0 line GPIO22 (LED)", errno: ENODEV)) {
            try await led.show(.steady(.white))
        }
        #expect(await record.next() == .released(line: "GPIO22"))
        // Still gone: the show tries for the line at once, fails, and keeps the pattern.
        await #expect(throws: HardwareError(.deviceUnavailable, device: "gpiochip0", errno: ENOENT)) {
            try await led.show(.blink(.white, on: .seconds(1), off: .seconds(1)))
        }

        gpio.addChip(lines: ["GPIO22"])
        clock.advance(to: .at(15.5))  // retry due at 15; the blink began at 10: dark now
        #expect(await record.next() == .requestedOutput(line: "GPIO22", activeLow: false, high: false))
        await led.awaitStatus { $0 == .ready }
        clock.advance(to: .at(16))
        #expect(await record.next() == .set(line: "GPIO22", high: true, at: .at(16)))
        await led.close()
    }

    @Test func closeTurnsTheLEDOffReleasesTheLineAndRefusesLaterShows() async throws {
        gpio.addChip(lines: ["GPIO22"])
        let led = try led()
        try await led.show(.steady(.white))
        await led.close()
        #expect(led.status == .closed)
        #expect(gpio.heldLines.isEmpty)
        #expect(gpio.openChips == 0)
        await #expect(throws: HardwareError.self) {
            try await led.show(.steady(.white))
        }
    }
}

extension GPIODIndicator.Configuration {
    static let test = GPIODIndicator.Configuration(chip: "gpiochip0", line: .name("GPIO22"))
}
