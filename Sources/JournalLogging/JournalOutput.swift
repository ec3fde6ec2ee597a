import Glibc
import Synchronization

/// Where ``JournalLogHandler`` writes: a file descriptor, one `write(2)` per line.
///
/// Lines from different threads never interleave: each is written by one `write` call (a stream
/// socket or pipe takes it whole; a short write is finished before any other line starts, under a
/// lock). A write that fails is dropped: logging never stops the daemon.
public final class JournalOutput: Sendable {
    /// The descriptor written to; not closed by this object.
    public let descriptor: Int32
    private let lock = Mutex(())

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    public static let standardError = JournalOutput(descriptor: 2)

    public func write(_ line: String) {
        var line = line
        line.withUTF8 { bytes in
            lock.withLock { _ in
                var offset = 0
                while offset < bytes.count {
                    // SAFETY: offset < count, so the pointer and length stay inside `bytes`.
                    let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { return }
                    offset += written
                }
            }
        }
    }
}
