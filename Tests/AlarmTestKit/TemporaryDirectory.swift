import Glibc

/// A fresh directory under /tmp, removed with its contents when the value is released.
public final class TemporaryDirectory: Sendable {
    public let path: String

    /// - Parameter parent: where to make it (a real disk for benchmarks; /tmp by default).
    public init(parent: String = "/tmp") throws {
        var template = Array("\(parent)/alarmd-test-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw ChildProcessError(message: "mkdtemp failed: errno \(errno)")
        }
        path = String(cString: created)
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
