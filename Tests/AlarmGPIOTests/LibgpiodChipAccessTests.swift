@testable import AlarmGPIO
import AlarmHardware
import Glibc
import Testing

/// The real shim over whichever libgpiod the package was built against (1.6 system-wide; 2.x
/// through `Tests/with-libgpiod2`). This machine has no GPIO chip, so only the
/// paths that need none are exercised here; the rest is the integration tests' (gpio-sim).
@Suite(.timeLimit(.minutes(5)))
struct LibgpiodChipAccessTests {
    static let missingChip = "/dev/gpiochip-alarmd-missing"

    @Test func apiVersionMatchesTheLibraryLoaded() {
        #expect([1, 2].contains(LibgpiodVersion.api))
        #expect(LibgpiodVersion.library.hasPrefix("\(LibgpiodVersion.api)."))
        // libgpiod2.sh sets this, so a v2 run proves it really built against v2.
        if let expected = getenv("ALARMD_EXPECTED_LIBGPIOD_API").map({ String(cString: $0) }) {
            #expect("\(LibgpiodVersion.api)" == expected)
        }
    }

    @Test func kernelDebounceOnlyWithLibgpiod2() {
        #expect(LibgpiodChipAccess().supportsKernelDebounce == (LibgpiodVersion.api == 2))
    }

    @Test(arguments: [missingChip, "gpiochip-alarmd-missing", "99", "alarmd-no-such-label"])
    func missingChipIsENOENT(_ chip: String) {
        #expect(throws: GPIOErrno(ENOENT)) { try LibgpiodChipAccess().openChip(chip) }
    }

    @Test func fileThatIsNoGPIOChipIsUnavailable() throws {
        let error = #expect(throws: GPIOErrno.self) { try LibgpiodChipAccess().openChip("/dev/null") }
        let mapped = try #require(error.map { HardwareError.gpio($0, device: "/dev/null") })
        #expect(mapped.kind == .deviceUnavailable)
    }

    @Test func buttonInputReportsTheMissingChipByName() async throws {
        let input = try GPIODButtonInput(
            configuration: .init(chip: Self.missingChip, stop: .name("GPIO17"), snooze: .name("GPIO27")))
        let status = await input.awaitStatus { $0.failure != nil }
        #expect(status == .failed(HardwareError(.deviceUnavailable, device: Self.missingChip, errno: ENOENT)))
        await input.close()
        #expect(input.status == .closed)
    }

    @Test func indicatorShowFailsWithTheMissingChipByName() async throws {
        let led = try GPIODIndicator(configuration: .init(chip: Self.missingChip, line: .name("GPIO22")))
        await #expect(throws: HardwareError(.deviceUnavailable, device: Self.missingChip, errno: ENOENT)) {
            try await led.show(.steady(.white))
        }
        await led.close()
    }

    @Test func systemClockWaitsForAnAbsoluteDeadline() throws {
        let clock = SystemGPIOClock()
        let start = clock.now()
        let events = try clock.wait(for: [], until: start + .milliseconds(20))
        #expect(events.isEmpty)
        #expect(clock.now() - start >= .milliseconds(20))
        #expect(clock.boottimeOffset() >= .zero)
    }
}
