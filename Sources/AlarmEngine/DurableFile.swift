import Glibc
import LinuxSupport

/// A system call on a store file failed.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    public let operation: String
    public let path: String
    public let errno: Int32
    /// Whether the new content already replaced the file (only its durability is in doubt).
    public var replacedFile = false
    /// Whether a failed append could not be taken back: the journal may hold the refused change,
    /// so the store must not use it again before a snapshot replaces it.
    public var journalUnusable = false
    /// Whether what stands at the path is not a regular file (a directory, a FIFO, a device, a
    /// symlink loop): it holds no state, and can be set aside like a damaged file. Any other
    /// failure to read means the file could not be read and must be left alone.
    public var notARegularFile = false

    /// Why, when `errno` alone does not say it (a FIFO where a file should be).
    public var reason: String?

    public init(
        operation: String, path: String, errno: Int32, replacedFile: Bool = false, journalUnusable: Bool = false,
        reason: String? = nil, notARegularFile: Bool = false
    ) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.replacedFile = replacedFile
        self.journalUnusable = journalUnusable
        self.reason = reason
        self.notARegularFile = notARegularFile
    }

    public var description: String {
        "\(operation) \(path): \(reason ?? String(cString: strerror(errno)))"
    }

    /// The errno's symbolic name (`EIO`), which is what a person searches for.
    public var errnoName: String { Self.name(of: errno) }

    /// `EIO` for `EIO`; `errno 140` for one without a name here.
    static func name(of errno: Int32) -> String {
        knownName(of: errno) ?? "errno \(errno)"
    }

    /// The symbolic name of an errno a store file may fail with; `nil` for any other.
    static func knownName(of errno: Int32) -> String? {
        names[errno]
    }

    /// The errors a failing SD card, a full disk or a hand-made mess of the state directory give.
    private static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", EIO: "EIO", ENXIO: "ENXIO", EBADF: "EBADF", EAGAIN: "EAGAIN",
        ENOMEM: "ENOMEM", EACCES: "EACCES", EBUSY: "EBUSY", EEXIST: "EEXIST", ENODEV: "ENODEV",
        ENOTDIR: "ENOTDIR", EISDIR: "EISDIR", EINVAL: "EINVAL", ENFILE: "ENFILE", EMFILE: "EMFILE",
        EFBIG: "EFBIG", ENOSPC: "ENOSPC", EROFS: "EROFS", EMLINK: "EMLINK", ENAMETOOLONG: "ENAMETOOLONG",
        ELOOP: "ELOOP", EDQUOT: "EDQUOT", EUCLEAN: "EUCLEAN", ESTALE: "ESTALE",
    ]
}

/// The store holds files that exist but could not be read (`EIO` from a failing SD card, a USB
/// disk not ready yet, `EACCES`): what they hold is unknown, so nothing is written to the store
/// until a later load reads every one of them.
public struct StoreUnreadable: Error, Hashable, Sendable, CustomStringConvertible {
    /// Each file that could not be read, with why.
    public let failures: [StoreError]

    public init(failures: [StoreError]) {
        self.failures = failures
    }

    public var description: String {
        let names = Set(failures.map(\.errnoName)).sorted().joined(separator: ", ")
        let files = failures.map(\.description).joined(separator: "; ")
        return "the alarm store could not be read (\(names): \(files)); changes are refused until it can be, "
            + "so no alarm already set is lost"
    }
}

/// The file operations of the durable store, on plain POSIX calls so that each step's durability
/// is explicit. ``system`` makes them on the kernel's file system; a test gives calls that fail.
package struct DurableFile: Sendable {
    package let calls: any FileSystemCalls

    package init(calls: any FileSystemCalls) {
        self.calls = calls
    }

    /// On the kernel's file system.
    package static let system = DurableFile(calls: SystemFileSystem())

    /// Reads a whole regular file; `nil` if it does not exist (or cannot: a component of its
    /// path is not a directory).
    ///
    /// Never blocks and never reads what is not a file: something put in a state file's place (a
    /// FIFO, which a plain open would wait on forever; a device; a directory; a symlink loop) is
    /// refused after a non-blocking open with an error whose ``StoreError/notARegularFile`` is
    /// set. Any other error (`EIO` from a failing card, `EACCES`, `ENOMEM`, ...) means the file
    /// could not be read: what it holds is unknown, and it must be left as it is.
    package func read(_ path: String) throws(StoreError) -> [UInt8]? {
        let descriptor = calls.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            if errno == ELOOP {
                throw StoreError(operation: "open", path: path, errno: ELOOP, reason: "a symbolic link loop, not a regular file", notARegularFile: true)
            }
            throw StoreError(operation: "open", path: path, errno: errno)
        }
        defer { _ = calls.close(descriptor) }
        var status = stat()
        guard calls.fstat(descriptor, &status) == 0 else { throw StoreError(operation: "fstat", path: path, errno: errno) }
        if let kind = SystemFile.nonRegularKind(status.st_mode) {
            throw StoreError(operation: "open", path: path, errno: EINVAL, reason: "\(kind), not a regular file", notARegularFile: true)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { calls.read(descriptor, $0) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StoreError(operation: "read", path: path, errno: errno)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Replaces `path` with `bytes` so that after a crash at any point the file holds either the
    /// old or the new content, and the new content survives a power cut once this returns:
    /// write a temporary file, fsync it, rename it over `path`, fsync the directory.
    package func replace(_ path: String, with bytes: [UInt8], directory: String) throws(StoreError) {
        let temporary = path + ".tmp"
        let descriptor = calls.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoreError(operation: "create", path: temporary, errno: errno) }
        do throws(StoreError) {
            try writeAll(bytes, to: descriptor, path: temporary)
            guard calls.fsync(descriptor) == 0 else { throw StoreError(operation: "fsync", path: temporary, errno: errno) }
        } catch {
            _ = calls.close(descriptor)
            _ = calls.unlink(temporary)
            throw error
        }
        guard calls.close(descriptor) == 0 else { throw StoreError(operation: "close", path: temporary, errno: errno) }
        guard calls.rename(temporary, path) == 0 else {
            let failure = StoreError(operation: "rename", path: temporary, errno: errno)
            _ = calls.unlink(temporary)
            throw failure
        }
        do throws(StoreError) {
            try syncDirectory(directory)
        } catch {
            throw StoreError(operation: error.operation, path: error.path, errno: error.errno, replacedFile: true)
        }
    }

    /// Makes renames in `directory` durable.
    func syncDirectory(_ directory: String) throws(StoreError) {
        let descriptor = calls.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard descriptor >= 0 else { throw StoreError(operation: "open", path: directory, errno: errno) }
        defer { _ = calls.close(descriptor) }
        guard calls.fsync(descriptor) == 0 else { throw StoreError(operation: "fsync", path: directory, errno: errno) }
    }

    /// Renames a file out of the way, durably, to `destination` or, if that name is taken (an
    /// earlier file kept aside in the same second), to `destination-2`, `-3`, ...: a file kept
    /// aside is never replaced. Returns the name used.
    func moveAside(_ path: String, to destination: String, directory: String) throws(StoreError) -> String {
        var candidate = destination
        var attempt = 1
        var status = stat()
        // The daemon is the only writer in its state directory, so nothing can take the name
        // between this check and the rename.
        while calls.lstat(candidate, &status) == 0 {
            attempt += 1
            candidate = "\(destination)-\(attempt)"
        }
        guard calls.rename(path, candidate) == 0 else { throw StoreError(operation: "rename", path: path, errno: errno) }
        try syncDirectory(directory)
        return candidate
    }

    /// Creates `directory` and its parents as needed (mode 0700 for the last one), and checks
    /// that it is a directory (something else of that name is `EEXIST` to `mkdir`).
    func makeDirectory(_ directory: String) throws(StoreError) {
        var path = ""
        for component in directory.split(separator: "/", omittingEmptySubsequences: true) {
            path += "/" + component
            if calls.mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw StoreError(operation: "mkdir", path: path, errno: errno)
            }
        }
        let descriptor = calls.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard descriptor >= 0 else { throw StoreError(operation: "mkdir", path: directory, errno: errno) }
        _ = calls.close(descriptor)
    }

    func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(StoreError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                calls.write(descriptor, UnsafeRawBufferPointer(rebasing: buffer[offset...]))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw StoreError(operation: "write", path: path, errno: errno)
            }
            offset += written
        }
    }
}
