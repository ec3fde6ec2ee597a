import AlarmHardware
import Glibc
import Synchronization

/// The sunrise light on one channel of a PWM controller, through the kernel's sysfs interface
/// (`/sys/class/pwm/pwmchipN/pwmM/{period,duty_cycle,enable}`, in nanoseconds): a Raspberry Pi's
/// hardware PWM after `dtoverlay=pwm,pin=12,func=4` (GPIO12), driving a lamp or LED strip through a MOSFET.
///
/// The channel is opened when first set, and again after a failure (a chip that appears once
/// its overlay is loaded, a file udev has since given alarmd's group): opening exports it (one
/// already exported, by a shell or an earlier run, is taken as it is), sets its period and a duty
/// cycle of 0, and enables it. The kernel refuses any
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

    public let configuration: Configuration
    /// The PWM period, in nanoseconds.
    public let period: UInt64
    private let files: any PWMAttributeFiles
    /// Waits between looks for udev's work (the real clock's `Task.sleep` on a board).
    private let pause: @Sendable (Duration) async -> Void
    /// The open channel's directory and the duty cycle it was last given; `nil` until opened, and
    /// after a failure.
    private let opened = Mutex<(path: String, duty: UInt64)?>(nil)

    /// Opens nothing yet: the first ``setOutput(_:)`` (or ``open()``) does.
    public init(
        configuration: Configuration, files: any PWMAttributeFiles = SystemPWMAttributeFiles(),
        pause: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }
    ) {
        self.configuration = configuration
        self.files = files
        self.pause = pause
        period = 1_000_000_000 / UInt64(min(max(configuration.frequency, 1), 1_000_000_000))
    }

    /// The channel's directory once open (`/sys/class/pwm/pwmchip0/pwm0`).
    public var channelPath: String? { opened.withLock { $0?.path } }

    /// Exports and enables the channel, dark (again, if it was open).
    ///
    /// - Throws: ``HardwareError``: `deviceUnavailable` when no such chip or channel exists,
    ///   `io` with the errno when the kernel refuses (`EACCES` for a file alarmd may not write).
    @discardableResult
    public func open() async throws(HardwareError) -> String {
        opened.withLock { $0 = nil }
        let chipPath = try Self.chipPath(configuration, files: files)
        let channel = configuration.channel
        let path = chipPath + "/pwm\(channel)"
        if let channels = files.read(chipPath + "/npwm").flatMap(Int.init), !(0..<channels).contains(channel) {
            throw HardwareError(.deviceUnavailable, device: path)
        }
        var exported = false
        if !files.exists(path) {
            // EBUSY: exported meanwhile (by a shell, or the kernel was quicker than the look).
            let export = chipPath + "/export"
            if let error = files.write("\(channel)", to: export), error != EBUSY {
                throw HardwareError(error == ENODEV || error == EINVAL ? .deviceUnavailable : .io, device: export, errno: error)
            }
            guard files.exists(path) else { throw HardwareError(.deviceUnavailable, device: path) }
            exported = true
        }
        let current = files.read(path + "/duty_cycle").flatMap(UInt64.init) ?? 0
        if current > period { try write("0", path, "duty_cycle") }
        // A channel exported just now is root's until udev has handled the chip's change event
        // (60-alarmd.rules gives it to the gpio group): a few milliseconds, up to 2 s on a busy board.
        var attempts = exported ? 100 : 1
        while true {
            attempts -= 1
            do throws(HardwareError) {
                try write("\(period)", path, "period")
                break
            } catch where error.errno == EACCES && attempts > 0 {
                await pause(.milliseconds(20))
            }
        }
        try write("0", path, "duty_cycle")
        try write("1", path, "enable")
        opened.withLock { $0 = (path, 0) }
        return path
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

    public func setOutput(_ output: Double) async throws {
        let wanted = UInt64((min(max(output, 0), 1) * Double(period)).rounded())
        let current = opened.withLock { $0 }
        if let current, current.duty == wanted { return }
        let path: String
        if let opened = current?.path {
            path = opened
        } else {
            path = try await open()
        }
        do {
            try write("\(wanted)", path, "duty_cycle")
        } catch {
            // Unexported behind alarmd's back, or the chip went: the next set opens it again.
            opened.withLock { $0 = nil }
            throw error
        }
        opened.withLock { $0 = (path, wanted) }
    }

    /// Turns the light off and gives the channel back.
    public func close() {
        guard let path = opened.withLock({ $0?.path }) else { return }
        _ = files.write("0", to: path + "/duty_cycle")
        _ = files.write("0", to: path + "/enable")
        let chipPath = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        _ = files.write("\(configuration.channel)", to: chipPath + "/unexport")
        opened.withLock { $0 = nil }
    }

    private func write(_ value: String, _ channelPath: String, _ attribute: String) throws(HardwareError) {
        let path = channelPath + "/" + attribute
        if let error = files.write(value, to: path) {
            throw HardwareError(error == ENODEV || error == ENOENT ? .deviceUnavailable : .io, device: path, errno: error)
        }
    }
}
