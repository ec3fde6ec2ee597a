import CLinuxSupport
import Glibc

/// SIGTERM and SIGINT, delivered to `body` from a thread of the process's own that sleeps on an
/// eventfd; it unblocks them, so they arrive even when the process inherited them blocked.
///
/// swift-service-lifecycle's signal handling uses libdispatch signal sources, whose first job
/// starts libdispatch's worker pool with its once-a-second timer (see ``ThreadPoolExecutor``), so
/// alarmd and alarm-web start their graceful shutdowns from here instead.
public enum ShutdownSignals {
    /// Calls `body` with the signal's number each time one of `signals` arrives, for the rest of
    /// the process's life. Once per process.
    public static func watch(_ signals: [Int32], _ body: @escaping @Sendable (Int32) -> Void) throws {
        let descriptor = signals.withUnsafeBufferPointer {
            alarmd_signals_to_eventfd($0.baseAddress, Int32($0.count))
        }
        guard descriptor >= 0 else { throw SetupError(operation: "sigaction", errno: -descriptor) }
        let created = DetachedThread.start {
            _ = signals.withUnsafeBufferPointer { alarmd_signals_unblock($0.baseAddress, Int32($0.count)) }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            while true {
                if poll(&waiting, 1, -1) < 0 {
                    if errno == EINTR { continue }
                    return
                }
                if alarmd_eventfd_drain(descriptor) == 0 { body(alarmd_signals_last()) }
            }
        }
        guard created == 0 else { throw SetupError(operation: "pthread_create", errno: created) }
    }

    public struct SetupError: Error, CustomStringConvertible {
        var operation: String
        var errno: Int32

        public var description: String { "\(operation) failed: \(String(cString: strerror(errno)))" }
    }
}
