import Glibc

/// A system call on a store file failed.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    public let operation: String
    public let path: String
    public let errno: Int32

    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(errno)))"
    }
}

/// The file operations of the durable store, on plain POSIX calls so that each step's durability
/// is explicit.
enum DurableFile {
    /// Reads a whole file; `nil` if it does not exist.
    static func read(_ path: String) throws(StoreError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw StoreError(operation: "open", path: path, errno: errno)
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
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
    static func replace(_ path: String, with bytes: [UInt8], directory: String) throws(StoreError) {
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoreError(operation: "create", path: temporary, errno: errno) }
        do throws(StoreError) {
            try writeAll(bytes, to: descriptor, path: temporary)
            guard fsync(descriptor) == 0 else { throw StoreError(operation: "fsync", path: temporary, errno: errno) }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        guard close(descriptor) == 0 else { throw StoreError(operation: "close", path: temporary, errno: errno) }
        guard rename(temporary, path) == 0 else {
            let failure = StoreError(operation: "rename", path: temporary, errno: errno)
            unlink(temporary)
            throw failure
        }
        try syncDirectory(directory)
    }

    /// Makes renames in `directory` durable.
    static func syncDirectory(_ directory: String) throws(StoreError) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreError(operation: "open", path: directory, errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw StoreError(operation: "fsync", path: directory, errno: errno) }
    }

    /// Renames a file out of the way, durably.
    static func moveAside(_ path: String, to destination: String, directory: String) throws(StoreError) {
        guard rename(path, destination) == 0 else { throw StoreError(operation: "rename", path: path, errno: errno) }
        try syncDirectory(directory)
    }

    /// Creates `directory` and its parents as needed (mode 0700 for the last one).
    static func makeDirectory(_ directory: String) throws(StoreError) {
        var path = ""
        for component in directory.split(separator: "/", omittingEmptySubsequences: true) {
            path += "/" + component
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw StoreError(operation: "mkdir", path: path, errno: errno)
            }
        }
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(StoreError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw StoreError(operation: "write", path: path, errno: errno)
            }
            offset += written
        }
    }
}
