import Glibc

/// A fresh directory under /tmp, removed with its contents when the value is released.
public final class TemporaryDirectory: Sendable {
    public let path: String

    /// - Parameter parent: where to make it (a real disk for benchmarks; /tmp by default).
    public init(parent: String = "/tmp") throws {
        guard let created = Self.makeUnique(template: "\(parent)/alarmd-test-XXXXXX") else {
            throw ChildProcessError(message: "mkdtemp failed: errno \(errno)")
        }
        path = created
    }

    /// `mkdtemp(3)`: creates a directory (mode 0700) named by `template` with its trailing
    /// `XXXXXX` made unique, and returns its path; `nil`, with `errno` set, if it cannot.
    public static func makeUnique(template: String) -> String? {
        var name = Array(template.utf8CString)
        return name.withUnsafeMutableBufferPointer { buffer in
            // mkdtemp fills in the name in place and returns a pointer into it, which is only
            // valid while this closure runs: the path is read from the buffer, here.
            guard mkdtemp(buffer.baseAddress!) != nil else { return nil }
            return String(cString: buffer.baseAddress!)
        }
    }

    deinit {
        Self.removeTree(path)
    }

    /// Deletes a directory tree (no symlinks are followed).
    public static func removeTree(_ path: String) {
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
                }
                if name == "." || name == ".." { continue }
                let child = path + "/" + name
                if entry.pointee.d_type == UInt8(DT_DIR) {
                    removeTree(child)
                } else {
                    unlink(child)
                }
            }
            closedir(directory)
        }
        rmdir(path)
    }
}
