import Glibc
import LinuxSupport

/// What the GPIO threads (started with `DetachedThread`) share.
enum GPIOThread {
    /// Blocks the calling thread for `interval`: the fallback when waiting on descriptors fails.
    static func pause(_ interval: Duration) {
        let (seconds, attoseconds) = interval.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR {
            request = remaining
        }
    }
}
