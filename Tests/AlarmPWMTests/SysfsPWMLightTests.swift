import AlarmHardware
import Glibc
import Synchronization
import Testing

@testable import AlarmPWM

/// The sunrise light on the kernel's PWM sysfs interface, against ``FakePWMKernel`` (6.1's rules).
@Suite struct SysfsPWMLightTests {
    static func kernel() -> FakePWMKernel {
        FakePWMKernel(chips: ["pwmchip0": ("fe20c000.pwm", 2), "pwmchip2": ("1f00098000.pwm", 4)])
    }

    @Test func openingExportsTheChannelAndEnablesItDarkAtTheFrequencysPeriod() async throws {
        let kernel = Self.kernel()
        let light = SysfsPWMLight(configuration: .init(chip: "pwmchip0", channel: 0, frequency: 2_000), files: kernel)
        #expect(light.channelPath == nil && kernel.channel("pwmchip0", 0)?.exported == false, "opened when first set")
        try await light.setOutput(0)
        #expect(light.channelPath == "/sys/class/pwm/pwmchip0/pwm0")
        #expect(kernel.channel("pwmchip0", 0) == .init(period: 500_000, duty: 0, enabled: true, exported: true))
        try await light.setOutput(0.25)
        #expect(kernel.channel("pwmchip0", 0)?.duty == 125_000)
        try await light.setOutput(1)
        #expect(kernel.channel("pwmchip0", 0)?.duty == 500_000)
        try await light.setOutput(1)
        #expect(kernel.duties == [125_000, 500_000], "the same output is not written again")
        light.close()
        #expect(kernel.channel("pwmchip0", 0) == .init(period: 500_000, duty: 0, enabled: false, exported: false), "off, then given back")
    }

    @Test func aChipIsFoundByItsDeviceNameWhateverItsNumber() async throws {
        let light = SysfsPWMLight(configuration: .init(chip: "1f00098000.pwm", channel: 2), files: Self.kernel())
        #expect(try await light.open() == "/sys/class/pwm/pwmchip2/pwm2")
        #expect(light.period == 1_000_000)
    }

    @Test func aChannelLeftWithALongerDutyCycleIsLoweredBeforeThePeriodShrinks() async throws {
        let kernel = Self.kernel()
        // What a shell (or an earlier run at 100 Hz) left: 10 ms period, 8 ms duty cycle, exported.
        #expect(kernel.write("0", to: "/sys/class/pwm/pwmchip0/export") == nil)
        #expect(kernel.write("10000000", to: "/sys/class/pwm/pwmchip0/pwm0/period") == nil)
        #expect(kernel.write("8000000", to: "/sys/class/pwm/pwmchip0/pwm0/duty_cycle") == nil)
        try await SysfsPWMLight(configuration: .init(chip: "pwmchip0", channel: 0, frequency: 1_000), files: kernel).open()
        #expect(kernel.channel("pwmchip0", 0) == .init(period: 1_000_000, duty: 0, enabled: true, exported: true))
    }

    @Test func aMissingChipOrChannelIsUnavailableAndARefusedWriteSaysWhichFileAndWhy() async throws {
        let kernel = Self.kernel()
        await #expect(throws: HardwareError(.deviceUnavailable, device: "/sys/class/pwm/pwmchip7")) {
            try await SysfsPWMLight(configuration: .init(chip: "pwmchip7", channel: 0), files: kernel).open()
        }
        await #expect(throws: HardwareError(.deviceUnavailable, device: "/sys/class/pwm/*: device 3f20c000.pwm")) {
            try await SysfsPWMLight(configuration: .init(chip: "3f20c000.pwm", channel: 0), files: kernel).open()
        }
        await #expect(throws: HardwareError(.deviceUnavailable, device: "/sys/class/pwm/pwmchip0/pwm2")) {
            try await SysfsPWMLight(configuration: .init(chip: "pwmchip0", channel: 2), files: kernel).open()
        }
        kernel.deny("/sys/class/pwm/pwmchip0/export")
        let light = SysfsPWMLight(configuration: .init(chip: "pwmchip0", channel: 0), files: kernel)
        await #expect(throws: HardwareError(.io, device: "/sys/class/pwm/pwmchip0/export", errno: EACCES)) {
            try await light.setOutput(1)
        }
        kernel.allow("/sys/class/pwm/pwmchip0/export")
        try await light.setOutput(1)
        #expect(kernel.channel("pwmchip0", 0)?.duty == 1_000_000, "udev gave the file to alarmd's group: it works from the next set")
    }

    @Test func aChannelJustExportedIsWaitedForUntilUdevGivesItToTheGroup() async throws {
        let kernel = Self.kernel()
        kernel.deny("/sys/class/pwm/pwmchip0/pwm0/period", times: 3)
        let pauses = Mutex(0)
        let light = SysfsPWMLight(configuration: .init(chip: "pwmchip0", channel: 0), files: kernel) { _ in pauses.withLock { $0 += 1 } }
        #expect(try await light.open() == "/sys/class/pwm/pwmchip0/pwm0")
        #expect(kernel.channel("pwmchip0", 0)?.enabled == true)
        #expect(pauses.withLock { $0 } == 3, "one pause after each refusal")
    }

    @Test func aChannelUnexportedBehindItsBackFailsOnceAndIsSetUpAgainAtTheNextSet() async throws {
        let kernel = Self.kernel()
        let light = SysfsPWMLight(configuration: .init(chip: "pwmchip0", channel: 1), files: kernel)
        try await light.setOutput(0.5)
        kernel.unexport("pwmchip0", 1)
        await #expect(throws: HardwareError.self) { try await light.setOutput(0.75) }
        try await light.setOutput(0.75)
        #expect(kernel.channel("pwmchip0", 1) == .init(period: 1_000_000, duty: 750_000, enabled: true, exported: true))
    }
}
