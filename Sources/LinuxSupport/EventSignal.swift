import CLinuxSupport
import Glibc

/// An eventfd that ends a thread's `poll`: readable once signalled, until drained.
public final class EventSignal: Sendable {
    public let descriptor: Int32

    /// `nil` when no eventfd can be had (`errno` says why).
    public init?() {
        let descriptor = alarmd_eventfd_create()
        guard descriptor >= 0 else {
            errno = -descriptor
            return nil
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    public func signal() {
        _ = alarmd_eventfd_signal(descriptor)
    }

    public func drain() {
        _ = alarmd_eventfd_drain(descriptor)
    }
}
