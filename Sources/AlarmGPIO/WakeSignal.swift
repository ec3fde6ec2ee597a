import AlarmHardware
import Glibc
internal import CLinuxSupport

/// An eventfd that wakes a backend thread out of its wait: readable once signalled, until drained.
final class WakeSignal: Sendable {
    let descriptor: Int32

    /// - Throws: ``HardwareError`` `.io` naming `device` when no eventfd can be had.
    init(device: String) throws(HardwareError) {
        let descriptor = alarmd_eventfd_create()
        guard descriptor >= 0 else { throw HardwareError(.io, device: device, errno: -descriptor) }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Makes the descriptor readable. The corresponding C function is `alarmd_eventfd_signal`.
    func signal() {
        _ = alarmd_eventfd_signal(descriptor)
    }

    /// Makes the descriptor unreadable again (it is non-blocking).
    func drain() {
        var count: UInt64 = 0
        _ = read(descriptor, &count, MemoryLayout<UInt64>.size)
    }
}
