import Glibc

/// Reading a whole small file through libc: zone files, WAV sounds, configuration files.
public enum SystemFile {
    /// Zone files are a few kilobytes; anything far larger is refused instead of being read into memory.
    public static let maximumSize = 4 << 20

    /// Reads the whole file at `path`, or returns the `errno` that stopped it (`EISDIR` for a
    /// directory, `EFBIG` above `maximumSize`).
    ///
    /// With `regularFileOnly`, the open cannot block and nothing but a regular file is read: a
    /// FIFO (whose plain open waits for a writer for ever), a device (a terminal, `/dev/zero`) or
    /// a socket in the file's place is opened with `O_NONBLOCK | O_NOCTTY`, then refused with
    /// `EINVAL` and ``Errno/notRegularFile`` saying what it is. Without it, a pipe or a character
    /// device is read as a shell would read it (`--config /dev/null`, `--config <(...)`).
    public static func read(
        _ path: String, maximumSize: Int = SystemFile.maximumSize, regularFileOnly: Bool = false
    ) -> Result<[UInt8], Errno> {
        let flags = O_RDONLY | O_CLOEXEC | (regularFileOnly ? O_NONBLOCK | O_NOCTTY : 0)
        var descriptor: Int32
        repeat { descriptor = open(path, flags) } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { return .failure(Errno(code: errno, opened: false)) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(Errno(code: errno)) }
        if status.st_mode & S_IFMT == S_IFDIR { return .failure(Errno(code: EISDIR)) }
        if regularFileOnly, let kind = nonRegularKind(status.st_mode) {
            return .failure(Errno(code: EINVAL, notRegularFile: kind))
        }
        guard status.st_size <= maximumSize else { return .failure(Errno(code: EFBIG)) }

        var buffer = [UInt8](repeating: 0, count: max(Int(status.st_size), 0) + 1)
        var length = 0
        while true {
            if length == buffer.count {
                guard buffer.count <= maximumSize else { return .failure(Errno(code: EFBIG)) }
                buffer.append(contentsOf: repeatElement(0, count: buffer.count))
            }
            let count = buffer.withUnsafeMutableBytes { raw in
                Glibc.read(descriptor, raw.baseAddress! + length, raw.count - length)
            }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(Errno(code: errno))
            }
            if count == 0 { break }
            length += count
        }
        guard length <= maximumSize else { return .failure(Errno(code: EFBIG)) }
        buffer.removeSubrange(length...)
        return .success(buffer)
    }

    /// What a file of mode `mode` (`stat`'s `st_mode`) is, in words, when it is not a regular file.
    public static func nonRegularKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFLNK: "a symbolic link"
        default: "not a file"
        }
    }

    /// An `errno` value as a typed error for `Result`.
    public struct Errno: Error, Equatable {
        public let code: Int32
        /// Whether the file opened, so that the failure is in reading it.
        public var opened = true
        /// What the path names instead of a regular file ("a FIFO", "a device", "a socket"), when
        /// a read that asked for a regular file only refused it.
        public var notRegularFile: String?
    }
}
