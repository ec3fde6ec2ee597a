import AlarmHardware
import Glibc

extension HardwareError {
    /// The error for a C library errno on `device`: missing things (`ENOENT`, `ENODEV`, `ENXIO`,
    /// and `ENOTTY` for a path that is not a GPIO chip) are `.deviceUnavailable`, `EBUSY` is
    /// `.busy`, anything else `.io`.
    static func gpio(_ failure: GPIOErrno, device: String) -> HardwareError {
        let kind: Kind = switch failure.code {
        case ENOENT, ENODEV, ENXIO, ENOTTY: .deviceUnavailable
        case EBUSY: .busy
        default: .io
        }
        return HardwareError(kind, device: device, errno: failure.code)
    }
}

/// How errors name a chip's line: `"gpiochip0 line GPIO17 (stop)"`.
func gpioLineDevice(chip: String, line: GPIOLineSelector, role: String) -> String {
    "\(chip) line \(line) (\(role))"
}
