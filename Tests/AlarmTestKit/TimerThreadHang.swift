import Glibc
import LinuxSupport
import Synchronization

/// Stops a ``RealtimeTimer``'s thread for real, as a hang in the kernel or a debugger would: a
/// sleep whose end action, which the timer's thread runs, blocks reading a pipe until
/// ``release()``. The initializer returns once the thread is blocked there.
///
/// Use a timer of the test's own (`RealtimeTimer()`), never `.shared`, which every other test
/// running at the same time sleeps on.
public final class TimerThreadHang: Sendable {
    /// The blocked thread's name, as the kernel shows it.
    public let threadName: String
    private let writeEnd: Int32
    private let released = Mutex(false)

    public init(_ timer: RealtimeTimer) async throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw ChildProcessError(message: "pipe: errno \(errno)") }
        let readEnd = ends[0]
        writeEnd = ends[1]
        let (blocked, entered) = AsyncStream.makeStream(of: String.self)
        while true {
            // An end action runs on the thread that registers it if the sleep has already ended:
            // that attempt does not count, and another sleep is tried.
            let registering = pthread_self()
            let ranHere = Mutex(false)
            try timer.arm(after: 0.001).onEnd { _ in
                if pthread_self() == registering {
                    ranHere.withLock { $0 = true }
                    return
                }
                entered.yield(Self.currentThreadName())
                var byte: UInt8 = 0
                _ = read(readEnd, &byte, 1)
                close(readEnd)  // here, where it was read: never while the thread may still read it
            }
            if !ranHere.withLock({ $0 }) { break }
        }
        var names = blocked.makeAsyncIterator()
        threadName = await names.next() ?? ""
    }

    deinit {
        release()
        close(writeEnd)
    }

    /// Lets the thread go on (once; later calls do nothing).
    public func release() {
        // Once: after its read the thread closes the read end, and a write then would raise SIGPIPE.
        let first = released.withLock { released in
            defer { released = true }
            return !released
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    private static func currentThreadName() -> String {
        let descriptor = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        return String(decoding: buffer.prefix(max(count, 0)).filter { $0 != 0x0A }, as: UTF8.self)
    }
}
