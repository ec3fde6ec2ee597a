import Glibc
import LinuxSupport

/// The file calls the sunrise light makes on the kernel's PWM interface (`/sys/class/pwm`), so
/// a test can stand in for the kernel. Each attribute is written in one `write(2)`, as sysfs wants.
public protocol PWMAttributeFiles: Sendable {
    /// Writes `value` to the attribute at `path`; the `errno` on failure, `nil` on success.
    func write(_ value: String, to path: String) -> Int32?
    /// The attribute's value without its newline; `nil` if it cannot be read.
    func read(_ path: String) -> String?
    /// Whether a file or directory is at `path`.
    func exists(_ path: String) -> Bool
    /// The names in a directory (`pwmchip0`, ...), unsorted; empty if it cannot be listed.
    func names(in directory: String) -> [String]
    /// Where a symbolic link points (a chip's `device`), as written in the link.
    func linkTarget(_ path: String) -> String?
}

/// The kernel's sysfs, through libc.
public struct SystemPWMAttributeFiles: PWMAttributeFiles {
    public init() {}

    public func write(_ value: String, to path: String) -> Int32? {
        var descriptor: Int32
        repeat { descriptor = open(path, O_WRONLY | O_CLOEXEC) } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { return errno }
        defer { close(descriptor) }
        let bytes = Array(value.utf8)
        var written: Int
        repeat {
            written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        } while written < 0 && errno == EINTR
        if written < 0 { return errno }
        return written == bytes.count ? nil : EIO
    }

    public func read(_ path: String) -> String? {
        guard case .success(let bytes) = SystemFile.read(path, maximumSize: 4096) else { return nil }
        var text = String(decoding: bytes, as: UTF8.self)
        while text.last == "\n" { text.removeLast() }
        return text
    }

    public func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    public func names(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    public func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
