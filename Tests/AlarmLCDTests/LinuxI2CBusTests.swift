import AlarmHardware
@testable import AlarmLCD
import AlarmTestKit
import Glibc
import Testing

/// The kernel interface on this machine, which has no I2C adapters: only its failures.
struct LinuxI2CBusTests {
    @Test func aMissingBusIsDeviceUnavailableNamingThePathAndAddress() {
        let bus = LinuxI2CBus(number: 99)
        #expect(bus.name == "/dev/i2c-99")
        let error = #expect(throws: HardwareError.self) { try bus.sendByte(0x08, to: 0x27) }
        #expect(error == HardwareError(.deviceUnavailable, device: "/dev/i2c-99@0x27", errno: ENOENT))
        let probe = #expect(throws: HardwareError.self) { _ = try bus.receiveByte(from: 0x3F) }
        #expect(probe?.device == "/dev/i2c-99@0x3F")
    }

    @Test func aFileThatIsNotAnI2CBusIsDeviceUnavailable() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/i2c-1"
        try TestFiles.write([], to: path)
        let error = #expect(throws: HardwareError.self) { try LinuxI2CBus(path: path).sendByte(0, to: 0x27) }
        #expect(error?.kind == .deviceUnavailable)
        #expect(error?.errno == ENOTTY)
    }

    @Test func adapterErrnosMapToKinds() {
        let kind = { (code: Int32) in LinuxI2CBus.transferError(code, device: "d").kind }
        #expect(kind(EREMOTEIO) == .noAcknowledge)  // i2c-bcm2835 and most adapters
        #expect(kind(ENXIO) == .noAcknowledge)
        #expect(kind(ENODEV) == .noAcknowledge)  // i2c-stub, no chip at the address
        #expect(kind(EAGAIN) == .busy)  // arbitration lost
        #expect(kind(ETIMEDOUT) == .io)
        #expect(LinuxI2CBus.addressError(EBUSY, device: "d").kind == .busy)  // a kernel driver owns it
        #expect(LinuxI2CBus.openError(EACCES, device: "d").kind == .io)
    }

    @Test(.timeLimit(.minutes(5)))
    func aDisplayOnAMissingBusThrowsAndKeepsNoThreadBusy() async {
        let display = HD44780Display(size: .sixteenByTwo, bus: LinuxI2CBus(number: 99), delay: ThreadSleepDelay())
        let error = await #expect(throws: HardwareError.self) {
            try await display.show(DisplayFrame(size: .sixteenByTwo))
        }
        #expect(error?.kind == .deviceUnavailable)
        #expect(error?.device == "/dev/i2c-99@0x27")
        #expect(await display.address == nil)
    }

    @Test func threadSleepDelayWaitsAtLeastItsDuration() {
        let clock = ContinuousClock()
        let began = clock.now
        ThreadSleepDelay().delay(for: .milliseconds(3))
        #expect(clock.now - began >= .milliseconds(3))
    }
}
