import AlarmHardware
import Glibc
import LinuxSupport

extension EventSignal {
    /// An eventfd that wakes a backend thread out of its wait, or `.io` naming `device` when none
    /// can be had.
    static func wakingBackend(device: String) throws(HardwareError) -> EventSignal {
        guard let signal = EventSignal() else { throw HardwareError(.io, device: device, errno: errno) }
        return signal
    }
}
