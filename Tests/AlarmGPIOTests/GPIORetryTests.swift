import AlarmHardware
import AlarmTestKit
import Glibc
import Testing

@testable import AlarmGPIO

/// How the backends wait for a missing chip: a chip node appearing in the device directory (a
/// temporary directory standing in for `/dev`) ends the wait at once; otherwise the wait doubles.
@Suite(.timeLimit(.minutes(5)))
struct GPIORetryTests {
    let clock = ManualGPIOClock(now: .seconds(100))

    @Test func aChipNodeAppearingEndsTheWaitWithoutTheClockMoving() async throws {
        let dev = try TemporaryDirectory()
        var configuration = GPIODButtonInput.Configuration.test
        configuration.deviceDirectory = dev.path
        let gpio = FakeGPIO(clock: clock, kernelDebounce: true)
        let input = try GPIODButtonInput(configuration: configuration, access: gpio, clock: clock)
        await input.awaitStatus { $0.failure != nil }
        await clock.waitForSleepers()

        try touch(dev.path + "/ttyUSB0")  // another device: not worth a try
        gpio.addChip(lines: ["GPIO17", "GPIO27"])
        try touch(dev.path + "/gpiochip0")
        await input.awaitStatus { $0 == .ready }
        #expect(clock.now() == .seconds(100))
        #expect(gpio.openAttempts == 2)
        await input.close()
    }

    @Test func aLineThatStaysBusyIsTriedAfterAWaitThatDoubles() async throws {
        let dev = try TemporaryDirectory()
        var configuration = GPIODButtonInput.Configuration.test
        configuration.deviceDirectory = dev.path
        let gpio = FakeGPIO(clock: clock, kernelDebounce: true)
        gpio.addChip(lines: ["GPIO17", "GPIO27"])
        gpio.setBusy("GPIO27", true)
        // Each try requests STOP's line, finds SNOOZE's busy and releases STOP's again.
        var record = gpio.events().makeAsyncIterator()
        let input = try GPIODButtonInput(configuration: configuration, access: gpio, clock: clock)
        #expect(await record.next() == .requestedInput(line: "GPIO17", settings: Self.settings, consumer: "alarmd"))
        #expect(await record.next() == .released(line: "GPIO17"))  // tried at 100 s
        clock.advance(to: .seconds(105))
        #expect(await record.next() == .requestedInput(line: "GPIO17", settings: Self.settings, consumer: "alarmd"))
        #expect(await record.next() == .released(line: "GPIO17"))  // tried at 105 s; next in 10 s, not 5
        clock.advance(to: .seconds(110))
        gpio.setBusy("GPIO27", false)
        clock.advance(to: .seconds(115))
        await input.awaitStatus { $0 == .ready }
        #expect(gpio.openAttempts == 3)
        await input.close()
    }

    @Test func theLEDWaitsForItsChipNodeToo() async throws {
        let dev = try TemporaryDirectory()
        var configuration = GPIODIndicator.Configuration.test
        configuration.deviceDirectory = dev.path
        let gpio = FakeGPIO(clock: clock, kernelDebounce: true)
        let led = try GPIODIndicator(configuration: configuration, access: gpio, clock: clock)
        await led.awaitStatus { $0.failure != nil }
        gpio.addChip(lines: ["GPIO22"])
        try touch(dev.path + "/gpiochip0")
        await led.awaitStatus { $0 == .ready }
        #expect(clock.now() == .seconds(100))
        await led.close()
    }

    static let settings = GPIOInputSettings(bias: .pullUp, activeLow: true, debounce: .milliseconds(30))

    private func touch(_ path: String) throws {
        let descriptor = open(path, O_CREAT | O_WRONLY, 0o600)
        try #require(descriptor >= 0)
        close(descriptor)
    }
}
