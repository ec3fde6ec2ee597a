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

    /// Whether ``descriptor`` is the journal's stream: systemd sets `JOURNAL_STREAM` to
    /// `DEVICE:INODE` of the socket it connects stdout and stderr to, and a redirected stderr no
    /// longer matches. Use it to leave the priority prefix out on a terminal:
    /// `JournalOutput.standardError.isJournalStream(getenv("JOURNAL_STREAM").map { String(cString: $0) })`.
    public func isJournalStream(_ journalStream: String?) -> Bool {
        guard let journalStream else { return false }
        let parts = journalStream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
