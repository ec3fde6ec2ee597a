import Glibc

/// Reading a whole small file through libc: zone files, WAV sounds, configuration files.
public enum SystemFile {
    /// Zone files are a few kilobytes; anything far larger is refused instead of being read into memory.
    public static let maximumSize = 4 << 20

    /// Reads the whole regular file at `path`, or returns the `errno` that stopped it
    /// (`EISDIR` for a directory, `EFBIG` above `maximumSize`).
    public static func read(_ path: String, maximumSize: Int = SystemFile.maximumSize) -> Result<[UInt8], Errno> {
        var descriptor: Int32
        repeat { descriptor = open(path, O_RDONLY | O_CLOEXEC) } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { return .failure(Errno(code: errno, opened: false)) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(Errno(code: errno)) }
        if status.st_mode & S_IFMT == S_IFDIR { return .failure(Errno(code: EISDIR)) }
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

    /// An `errno` value as a typed error for `Result`.
    public struct Errno: Error, Equatable {
        public let code: Int32
        /// Whether the file opened, so that the failure is in reading it.
        public var opened = true
    }
}
