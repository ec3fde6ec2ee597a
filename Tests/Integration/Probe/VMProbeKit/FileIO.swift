import Glibc

/// Whole-file reads and small writes with errors worded for a test log.
public enum FileIO {
    /// The bytes of `path`.
    /// - Throws: ``ProbeError`` `cannot read PATH: <reason>`.
    public static func read(_ path: String) throws(ProbeError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system("cannot read", path, errno: errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            // SAFETY: the chunk buffer is valid for its whole length during the call.
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw .system("cannot read", path, errno: errno) }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// The text of `path`, decoded as UTF-8 (invalid bytes replaced).
    public static func readText(_ path: String) throws(ProbeError) -> String {
        String(decoding: try read(path), as: UTF8.self)
    }

    /// Whether something exists at `path` (following symlinks).
    public static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Creates `path` as a directory if nothing is there yet.
    /// - Throws: ``ProbeError`` `cannot create directory PATH: <reason>`.
    public static func makeDirectory(_ path: String) throws(ProbeError) {
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw .system("cannot create directory", path, errno: errno)
        }
    }

    /// Writes `text` to an existing file such as a sysfs attribute, in one `write` call, without
    /// creating or truncating anything (sysfs takes each write as one value).
    /// - Throws: ``ProbeError`` `cannot write PATH: <reason>`.
    public static func writeAttribute(_ text: String, to path: String) throws(ProbeError) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system("cannot write", path, errno: errno) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        while true {
            // SAFETY: the bytes are valid for their length during the call.
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written < 0 { throw .system("cannot write", path, errno: errno) }
            return
        }
    }
}

/// A file the probe appends to, with its own buffer flushed by whole lines or blocks, so a
/// reader that looks while the probe runs never sees half a line.
///
/// Not `Sendable`: each recorder owns its files on one thread.
public final class AppendFile {
    public let path: String
    private var descriptor: Int32
    private var pending: [UInt8] = []

    /// Creates or truncates `path`.
    /// - Throws: ``ProbeError`` `cannot create PATH: <reason>`.
    public init(creating path: String) throws(ProbeError) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .system("cannot create", path, errno: errno) }
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Queues bytes; nothing reaches the file before ``flush()``.
    public func append(_ bytes: some Sequence<UInt8>) {
        pending.append(contentsOf: bytes)
    }

    /// Queues a line (a newline is added).
    public func appendLine(_ line: String) {
        pending.append(contentsOf: line.utf8)
        pending.append(UInt8(ascii: "\n"))
    }

    /// Bytes queued and not yet written.
    public var pendingCount: Int { pending.count }

    /// Writes what is queued.
    /// - Throws: ``ProbeError`` `cannot write PATH: <reason>` (a full disk, a removed directory).
    public func flush() throws(ProbeError) {
        var offset = 0
        defer { pending.removeFirst(offset) }
        while offset < pending.count {
            // SAFETY: the pending buffer outlives the call and holds `count - offset` bytes from there.
            let written = pending.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { throw .system("cannot write", path, errno: written < 0 ? errno : EIO) }
            offset += written
        }
    }

    /// Flushes and closes; harmless twice.
    public func close() throws(ProbeError) {
        guard descriptor >= 0 else { return }
        try flush()
        Glibc.close(descriptor)
        descriptor = -1
    }
}
