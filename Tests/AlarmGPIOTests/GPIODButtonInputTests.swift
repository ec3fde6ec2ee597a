@testable import AlarmGPIO
import AlarmHardware
import Glibc
import Testing

/// GPIODButtonInput's thread against ``FakeGPIO`` and ``ManualGPIOClock``: real thread, real
/// `poll` on eventfds, everything below the C library seam faked, time moved by hand.
@Suite(.timeLimit(.minutes(5)))
struct GPIODButtonInputTests {
    /// Kernel time 100 s; the system has been suspended for 7 s, so `CLOCK_BOOTTIME` is 7 s ahead.
    let clock = ManualGPIOClock(now: .seconds(100), boottimeOffset: .seconds(7))

    func rig(kernelDebounce: Bool, lines: [String?]? = ["GPIO17", "GPIO27"], configuration: GPIODButtonInput.Configuration = .test)
        throws -> (gpio: FakeGPIO, input: GPIODButtonInput)
    {
        let gpio = FakeGPIO(clock: clock, kernelDebounce: kernelDebounce)
        if let lines { gpio.addChip(lines: lines) }
        let input = try GPIODButtonInput(configuration: configuration, access: gpio, clock: clock)
        return (gpio, input)
    }

    // MARK: - libgpiod 1: software debounce

    @Test func softwareDebounceDropsBounceAndReadsTheLineBackAtTheDeadline() async throws {
        let (gpio, input) = try rig(kernelDebounce: false)
        await input.awaitStatus { $0 == .ready }
        var events = input.events().makeAsyncIterator()
        var record = gpio.events().makeAsyncIterator()
        gpio.drive("GPIO17", high: false, at: .at(100.000))  // pressed (to ground: active-low)
        gpio.drive("GPIO17", high: true, at: .at(100.004))  // bounce, dropped
        gpio.drive("GPIO17", high: false, at: .at(100.009))  // settles pressed
        #expect(await events.next() == ButtonEvent(.stop, .pressed, at: .at(107.000)))
        // A dropped edge changed the level: the line is read back once the window is over, at
        // the deadline and not before (the read is stamped with the manual time).
        clock.advance(to: .at(100.030))
        #expect(await record.next() == .read(line: "GPIO17", at: .at(100.030)))
        gpio.drive("GPIO17", high: true, at: .at(100.500))
        #expect(await events.next() == ButtonEvent(.stop, .released, at: .at(107.500)))
        await input.close()
    }

    @Test func tapShorterThanTheWindowIsReleasedByTheReadBack() async throws {
        let (gpio, input) = try rig(kernelDebounce: false)
        await input.awaitStatus { $0 == .ready }
        var events = input.events().makeAsyncIterator()
        gpio.drive("GPIO27", high: false, at: .at(100.000))
        gpio.drive("GPIO27", high: true, at: .at(100.010))  // inside the window: dropped
        #expect(await events.next() == ButtonEvent(.snooze, .pressed, at: .at(107.000)))
        clock.advance(to: .at(100.030))
        // Released, stamped with the deadline at which the read-back confirmed it.
        #expect(await events.next() == ButtonEvent(.snooze, .released, at: .at(107.030)))
        #expect(gpio.reads == 1)
        await input.close()
    }

    @Test func libgpiod1RequestsNoKernelDebounce() async throws {
        let gpio = FakeGPIO(clock: clock, kernelDebounce: false)
        gpio.addChip(lines: ["GPIO17", "GPIO27"])
        var record = gpio.events().makeAsyncIterator()
        let input = try GPIODButtonInput(configuration: .test, access: gpio, clock: clock)
        let settings = GPIOInputSettings(bias: .pullUp, activeLow: true, debounce: .zero)
        #expect(await record.next() == .requestedInput(line: "GPIO17", settings: settings, consumer: "alarmd"))
        #expect(await record.next() == .requestedInput(line: "GPIO27", settings: settings, consumer: "alarmd"))
        await input.close()
    }

    // MARK: - libgpiod 2: kernel debounce

    @Test func kernelDebouncedEdgesPassThroughWithNoSoftwareStage() async throws {
        let gpio = FakeGPIO(clock: clock, kernelDebounce: true)
        gpio.addChip(lines: ["GPIO17", "GPIO27"])
        var record = gpio.events().makeAsyncIterator()
        let input = try GPIODButtonInput(configuration: .test, access: gpio, clock: clock)
        let settings = GPIOInputSettings(bias: .pullUp, activeLow: true, debounce: .milliseconds(30))
        #expect(await record.next() == .requestedInput(line: "GPIO17", settings: settings, consumer: "alarmd"))
        #expect(await record.next() == .requestedInput(line: "GPIO27", settings: settings, consumer: "alarmd"))
        await input.awaitStatus { $0 == .ready }

        var events = input.events().makeAsyncIterator()
        // The kernel has debounced these already: 5 ms apart, they both pass, and nothing reads
        // the line back.
        gpio.drive("GPIO17", high: false, at: .at(100.000))
        gpio.drive("GPIO17", high: true, at: .at(100.005))
        #expect(await events.next() == ButtonEvent(.stop, .pressed, at: .at(107.000)))
        #expect(await events.next() == ButtonEvent(.stop, .released, at: .at(107.005)))
        clock.advance(to: .at(101))
        gpio.drive("GPIO27", high: false, at: .at(101))
        #expect(await events.next() == ButtonEvent(.snooze, .pressed, at: .at(108)))
        #expect(gpio.reads == 0)
        await input.close()
    }

    // MARK: - Wiring

    @Test(arguments: [false, true])
    func activeHighLineWithPullDownReportsHighAsPressed(kernelDebounce: Bool) async throws {
        var configuration = GPIODButtonInput.Configuration.test
        configuration.bias = .pullDown
        configuration.activeLow = false
        let gpio = FakeGPIO(clock: clock, kernelDebounce: kernelDebounce)
        gpio.addChip(lines: ["GPIO17", "GPIO27"])
        gpio.drive("GPIO27", high: false, at: .zero)  // pulled down, before anyone watches
        var record = gpio.events().makeAsyncIterator()
        let input = try GPIODButtonInput(configuration: configuration, access: gpio, clock: clock)
        let settings = GPIOInputSettings(
            bias: .pullDown, activeLow: false, debounce: kernelDebounce ? .milliseconds(30) : .zero)
        #expect(await record.next() == .requestedInput(line: "GPIO17", settings: settings, consumer: "alarmd"))
        await input.awaitStatus { $0 == .ready }
        var events = input.events().makeAsyncIterator()
        gpio.drive("GPIO27", high: true, at: .at(100.1))
        gpio.drive("GPIO27", high: false, at: .at(100.3))
        #expect(await events.next() == ButtonEvent(.snooze, .pressed, at: .at(107.1)))
        #expect(await events.next() == ButtonEvent(.snooze, .released, at: .at(107.3)))
        await input.close()
    }

    @Test func chipFoundByLabelAndLinesByOffset() async throws {
        var configuration = GPIODButtonInput.Configuration.test
        configuration.chip = "pinctrl-test"
        configuration.stop = .offset(1)
        configuration.snooze = .offset(0)
        let (gpio, input) = try rig(kernelDebounce: false, configuration: configuration)
        await input.awaitStatus { $0 == .ready }
        var events = input.events().makeAsyncIterator()
        gpio.drive("GPIO27", high: false, at: .at(100.2))
        #expect(await events.next() == ButtonEvent(.stop, .pressed, at: .at(107.2)))
        await input.close()
    }

    // MARK: - Missing, busy, lost

    @Test func missingChipIsReportedByNameAndRetriedUntilItAppears() async throws {
        let (gpio, input) = try rig(kernelDebounce: false, lines: nil)
        let status = await input.awaitStatus { $0.failure != nil }
        #expect(status == .failed(HardwareError(.deviceUnavailable, device: "gpiochip0", errno: ENOENT)))
        await clock.waitForSleepers()
        #expect(gpio.openAttempts == 1)  // asleep until the retry, not spinning

        gpio.addChip(lines: ["GPIO17", "GPIO27"])
        clock.advance(by: .seconds(5))
        await input.awaitStatus { $0 == .ready }
        #expect(gpio.openAttempts == 2)
        #expect(gpio.heldLines == ["GPIO17", "GPIO27"])
        await input.close()
    }

    @Test func missingLineIsNamedAndTheOtherLineReleasedUntilTheRetry() async throws {
        let (gpio, input) = try rig(kernelDebounce: true, lines: ["GPIO17", nil])
        let status = await input.awaitStatus { $0.failure != nil }
        #expect(
            status == .failed(HardwareError(.deviceUnavailable, device: "gpiochip0 line GPIO27 (snooze)", errno: ENOENT)))
        await clock.waitForSleepers()
        #expect(gpio.heldLines.isEmpty)
        #expect(gpio.openChips == 0)

        gpio.addChip(lines: ["GPIO17", "GPIO27"])
        clock.advance(by: .seconds(5))
        await input.awaitStatus { $0 == .ready }
        await input.close()
    }

    @Test func offsetBeyondTheChipIsAMissingLine() async throws {
        var configuration = GPIODButtonInput.Configuration.test
        configuration.stop = .offset(40)
        let (_, input) = try rig(kernelDebounce: false, configuration: configuration)
        let status = await input.awaitStatus { $0.failure != nil }
        #expect(status == .failed(HardwareError(.deviceUnavailable, device: "gpiochip0 line 40 (stop)", errno: ENOENT)))
        await input.close()
    }

    @Test func busyLineIsReportedAsBusyAndRetried() async throws {
        let gpio = FakeGPIO(clock: clock, kernelDebounce: false)
        gpio.addChip(lines: ["GPIO17", "GPIO27"])
        gpio.setBusy("GPIO17", true)
        let input = try GPIODButtonInput(configuration: .test, access: gpio, clock: clock)
        let status = await input.awaitStatus { $0.failure != nil }
        #expect(status == .failed(HardwareError(.busy, device: "gpiochip0 line GPIO17 (stop)", errno: EBUSY)))

        gpio.setBusy("GPIO17", false)
        clock.advance(by: .seconds(5))
        await input.awaitStatus { $0 == .ready }
        await input.close()
    }

    @Test func chipLostInUseReleasesAHeldButtonAndIsRetried() async throws {
        let (gpio, input) = try rig(kernelDebounce: false)
        await input.awaitStatus { $0 == .ready }
        var events = input.events().makeAsyncIterator()
        gpio.drive("GPIO17", high: false, at: .at(100))
        #expect(await events.next() == ButtonEvent(.stop, .pressed, at: .at(107)))

        clock.advance(to: .at(100.5))
        gpio.removeChip()
        // No press is left hanging: the held button is released when its line goes.
        #expect(await events.next() == ButtonEvent(.stop, .released, at: .at(107.5)))
        let failure = await input.awaitStatus { $0.failure != nil }?.failure
        // Whichever line's descriptor woke the thread first is named.
        #expect(failure?.kind == .deviceUnavailable)
        #expect(failure?.errno == ENODEV)
        #expect(["gpiochip0 line GPIO17 (stop)", "gpiochip0 line GPIO27 (snooze)"].contains(failure?.device))
        #expect(gpio.heldLines.isEmpty)

        gpio.addChip(lines: ["GPIO17", "GPIO27"])
        clock.advance(by: .seconds(5))
        await input.awaitStatus { $0 == .ready }
        gpio.drive("GPIO27", high: false, at: .at(106))
        #expect(await events.next() == ButtonEvent(.snooze, .pressed, at: .at(113)))
        await input.close()
    }

    // MARK: - Shutdown

    @Test func closeReleasesTheLinesAndEndsTheThread() async throws {
        let (gpio, input) = try rig(kernelDebounce: true)
        await input.awaitStatus { $0 == .ready }
        #expect(gpio.heldLines == ["GPIO17", "GPIO27"])
        await input.close()
        #expect(input.status == .closed)
        #expect(gpio.heldLines.isEmpty)
        #expect(gpio.openChips == 0)
        await input.close()  // harmless twice
    }

    @Test func closeWhileRetryingEndsAtOnce() async throws {
        let (gpio, input) = try rig(kernelDebounce: false, lines: nil)
        await input.awaitStatus { $0.failure != nil }
        await input.close()  // not after the 5 s retry interval: the manual clock never moves
        #expect(input.status == .closed)
        #expect(gpio.openAttempts == 1)
    }
}

extension GPIODButtonInput.Configuration {
    static let test = GPIODButtonInput.Configuration(chip: "gpiochip0", stop: .name("GPIO17"), snooze: .name("GPIO27"))
}
