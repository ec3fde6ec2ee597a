import AlarmPWM
import Glibc
import Synchronization

/// The kernel's PWM sysfs interface as 6.1 behaves (drivers/pwm/sysfs.c, core.c), for the light's
/// tests: chips under a root with `npwm`, `export`, `unexport` and a `device` link; a channel's
/// directory only while exported; every write of `period`, `duty_cycle` or `enable` applies the
/// whole state and is refused with `EINVAL` when the period is 0 or the duty cycle exceeds it,
/// enabled or not; the state survives an unexport.
final class FakePWMKernel: PWMAttributeFiles {
    struct Channel: Hashable {
        var period: UInt64 = 0
        var duty: UInt64 = 0
        var enabled = false
        var exported = false
    }

    struct Chip {
        var device: String
        var channels: [Channel]
    }

    let root: String
    private let state: Mutex<(chips: [String: Chip], denied: Set<String>, duties: [UInt64], deniedTimes: [String: Int])>

    init(root: String = "/sys/class/pwm", chips: [String: (device: String, npwm: Int)]) {
        self.root = root
        state = Mutex((chips.mapValues { Chip(device: $0.device, channels: Array(repeating: Channel(), count: $0.npwm)) }, [], [], [:]))
    }

    /// Writes to `path` fail with `EACCES` (a file udev has not given alarmd's group).
    func deny(_ path: String) { state.withLock { _ = $0.denied.insert(path) } }
    func allow(_ path: String) { state.withLock { _ = $0.denied.remove(path) } }
    /// The next `times` writes to `path` fail with `EACCES`, as before udev has handled an export.
    func deny(_ path: String, times: Int) { state.withLock { $0.deniedTimes[path] = times } }

    /// Every duty cycle the kernel accepted, in order.
    var duties: [UInt64] { state.withLock { $0.duties } }

    func channel(_ chip: String, _ index: Int) -> Channel? {
        state.withLock { $0.chips[chip]?.channels[index] }
    }

    /// Unexports behind the light's back, as a person at a shell might.
    func unexport(_ chip: String, _ index: Int) {
        state.withLock { $0.chips[chip]?.channels[index].exported = false }
    }

    /// `(chip, channel index or nil, attribute)` of a path under the root.
    private func parse(_ path: String) -> (chip: String, channel: Int?, attribute: String?)? {
        guard path.hasPrefix(root + "/") else { return nil }
        let parts = path.dropFirst(root.count + 1).split(separator: "/").map(String.init)
        guard let chip = parts.first else { return nil }
        if parts.count >= 2, parts[1].hasPrefix("pwm"), let index = Int(parts[1].dropFirst(3)) {
            return (chip, index, parts.count == 3 ? parts[2] : nil)
        }
        return (chip, nil, parts.count == 2 ? parts[1] : nil)
    }

    func write(_ value: String, to path: String) -> Int32? {
        state.withLock { state in
            guard !state.denied.contains(path) else { return EACCES }
            if let times = state.deniedTimes[path], times > 0 {
                state.deniedTimes[path] = times - 1
                return EACCES
            }
            guard let (name, index, attribute) = parse(path), var chip = state.chips[name], let attribute else { return ENOENT }
            defer { state.chips[name] = chip }
            guard let index else {
                guard attribute == "export" || attribute == "unexport" else { return EACCES }
                guard let number = Int(value), number >= 0 else { return EINVAL }
                guard number < chip.channels.count else { return ENODEV }
                if attribute == "export" {
                    if chip.channels[number].exported { return EBUSY }
                    chip.channels[number].exported = true
                } else {
                    if !chip.channels[number].exported { return ENODEV }
                    chip.channels[number].exported = false
                }
                return nil
            }
            guard index < chip.channels.count, chip.channels[index].exported else { return ENOENT }
            var next = chip.channels[index]
            switch attribute {
            case "period":
                guard let number = UInt64(value) else { return EINVAL }
                next.period = number
            case "duty_cycle":
                guard let number = UInt64(value) else { return EINVAL }
                next.duty = number
            case "enable":
                guard value == "0" || value == "1" else { return EINVAL }
                next.enabled = value == "1"
            default:
                return EACCES
            }
            guard next.period > 0, next.duty <= next.period else { return EINVAL }
            if next.duty != chip.channels[index].duty { state.duties.append(next.duty) }
            chip.channels[index] = next
            return nil
        }
    }

    func read(_ path: String) -> String? {
        state.withLock { state in
            guard let (name, index, attribute) = parse(path), let chip = state.chips[name], let attribute else { return nil }
            guard let index else { return attribute == "npwm" ? "\(chip.channels.count)" : nil }
            guard index < chip.channels.count, chip.channels[index].exported else { return nil }
            let channel = chip.channels[index]
            switch attribute {
            case "period": return "\(channel.period)"
            case "duty_cycle": return "\(channel.duty)"
            case "enable": return channel.enabled ? "1" : "0"
            default: return nil
            }
        }
    }

    func exists(_ path: String) -> Bool {
        state.withLock { state in
            if path == root { return true }
            guard let (name, index, _) = parse(path), let chip = state.chips[name] else { return false }
            guard let index else { return true }
            return index < chip.channels.count && chip.channels[index].exported
        }
    }

    func names(in directory: String) -> [String] {
        directory == root ? state.withLock { Array($0.chips.keys) } : []
    }

    func linkTarget(_ path: String) -> String? {
        guard let (name, channel, attribute) = parse(path), channel == nil, attribute == "device" else { return nil }
        return state.withLock { $0.chips[name].map { "../../../" + $0.device } }
    }
}
