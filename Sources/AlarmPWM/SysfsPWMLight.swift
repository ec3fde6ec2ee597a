import AlarmHardware
import Glibc
import Synchronization

/// The sunrise light on one channel of a PWM controller, through the kernel's sysfs interface
/// (`/sys/class/pwm/pwmchipN/pwmM/{period,duty_cycle,enable}`, in nanoseconds): a Raspberry Pi's
/// hardware PWM after `dtoverlay=pwm` (GPIO18), driving a lamp or LED strip through a MOSFET.
///
/// Opening exports the channel (one already exported, by a shell or an earlier run, is taken
/// as it is), sets its period and a duty cycle of 0, and enables it. The kernel refuses any
/// state with a period of 0 or a duty cycle longer than the period (`EINVAL`, before 6.11 even
/// while disabled), so the duty cycle is lowered before the period shrinks and the period set
/// before the duty cycle grows. ``close()`` turns it off: unexporting alone would leave it
/// lit.
public final class SysfsPWMLight: DimmableLight {
    public struct Configuration: Hashable, Sendable {
        /// `pwmchipN`, or the PWM controller's device name (`fe20c000.pwm` on a Pi 4,
        /// `1f00098000.pwm` on a Pi 5), which stays the same when the kernel numbers its chips
        /// otherwise (6.8 numbers them in order, no longer by their first channel).
        public var chip: String
        public var channel: Int
        /// A few hundred hertz to a few kilohertz: an LED does not flicker, a MOSFET switches
        /// cleanly.
        public var frequency: Int
        public var root: String

        public init(chip: String, channel: Int, frequency: Int = 1_000, root: String = "/sys/class/pwm") {
            self.chip = chip
            self.channel = channel
            self.frequency = frequency
            self.root = root
        }
    }

    public let channelPath: String
    /// The PWM period, in nanoseconds.
    public let period: UInt64
    private let files: any PWMAttributeFiles
    private let exportPath: String
    private let channel: Int
    private let duty = Mutex<UInt64?>(nil)

    /// - Throws: ``HardwareError``: `deviceUnavailable` when no such chip or channel exists,
    ///   `io` with the errno when the kernel refuses (`EACCES` for a file alarmd may not write).
    public init(configuration: Configuration, files: any PWMAttributeFiles = SystemPWMAttributeFiles()) throws(HardwareError) {
        guard (1...1_000_000).contains(configuration.frequency) else {
            throw HardwareError(.deviceUnavailable, device: "pwm frequency \(configuration.frequency) Hz")
        }
        let chipPath = try Self.chipPath(configuration, files: files)
        self.files = files
        channel = configuration.channel
        exportPath = chipPath + "/export"
        channelPath = chipPath + "/pwm\(configuration.channel)"
        period = 1_000_000_000 / UInt64(configuration.frequency)
        if let channels = files.read(chipPath + "/npwm").flatMap(Int.init), !(0..<channels).contains(channel) {
            throw HardwareError(.deviceUnavailable, device: channelPath)
        }
        try export()
        try start()
    }

    /// The chip's directory: by its `pwmchipN` name, or by the name of the device behind it.
    static func chipPath(_ configuration: Configuration, files: any PWMAttributeFiles) throws(HardwareError) -> String {
        let root = configuration.root
        if configuration.chip.hasPrefix("pwmchip") {
            let path = root + "/" + configuration.chip
            guard files.exists(path) else { throw HardwareError(.deviceUnavailable, device: path) }
            return path
        }
        for name in files.names(in: root).sorted() where name.hasPrefix("pwmchip") {
            let device = files.linkTarget(root + "/" + name + "/device")
            if device?.split(separator: "/").last.map(String.init) == configuration.chip { return root + "/" + name }
        }
        throw HardwareError(.deviceUnavailable, device: root + "/*: device " + configuration.chip)
    }

    private func export() throws(HardwareError) {
        guard !files.exists(channelPath) else { return }
        // EBUSY: exported meanwhile (by a shell, or the kernel was quicker than the look).
        if let error = files.write("\(channel)", to: exportPath), error != EBUSY {
            throw HardwareError(error == ENODEV || error == EINVAL ? .deviceUnavailable : .io, device: exportPath, errno: error)
        }
        guard files.exists(channelPath) else { throw HardwareError(.deviceUnavailable, device: channelPath) }
    }

    /// Our period, a duty cycle of 0, enabled.
    private func start() throws(HardwareError) {
        let current = files.read(channelPath + "/duty_cycle").flatMap(UInt64.init) ?? 0
        if current > period { try write("0", "duty_cycle") }
        try write("\(period)", "period")
        try write("0", "duty_cycle")
        try write("1", "enable")
        duty.withLock { $0 = 0 }
    }

    public func setOutput(_ output: Double) async throws {
        let wanted = UInt64((min(max(output, 0), 1) * Double(period)).rounded())
        guard duty.withLock({ $0 }) != wanted else { return }
        do {
            try write("\(wanted)", "duty_cycle")
        } catch {
            // The channel was unexported behind alarmd's back (or the chip went and came back):
            // export and set it up again, once.
            guard !files.exists(channelPath) else { throw error }
            try export()
            try start()
            try write("\(wanted)", "duty_cycle")
        }
        duty.withLock { $0 = wanted }
    }

    /// Turns the light off and gives the channel back.
    public func close() {
        _ = files.write("0", to: channelPath + "/duty_cycle")
        _ = files.write("0", to: channelPath + "/enable")
        _ = files.write("\(channel)", to: exportPath.replacingSuffix("export", with: "unexport"))
        duty.withLock { $0 = nil }
    }

    private func write(_ value: String, _ attribute: String) throws(HardwareError) {
        let path = channelPath + "/" + attribute
        if let error = files.write(value, to: path) {
            throw HardwareError(error == ENODEV || error == ENOENT ? .deviceUnavailable : .io, device: path, errno: error)
        }
    }
}

extension String {
    fileprivate func replacingSuffix(_ suffix: String, with replacement: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + replacement : self
    }
}
