import Glibc

/// Reading configuration files (board profiles, `alarmd.toml`), on Glibc so that the module
/// needs no Foundation.
public enum ConfigFile {
    /// Configuration files are small; anything bigger is not one.
    public static let maximumSize = 1 << 20

    public enum Contents {
        case text(String)
        /// ENOENT.
        case missing
    }

    /// The whole file as UTF-8 text. A failure is at line 0 with the system's reason, or at the
    /// line of the first byte that is not UTF-8.
    public static func read(_ path: String) throws(ConfigError) -> Contents {
        var descriptor: Int32
        repeat { descriptor = open(path, O_RDONLY | O_CLOEXEC) } while descriptor < 0 && errno == EINTR
        if descriptor < 0 && errno == ENOENT { return .missing }
        guard descriptor >= 0 else { throw failure(path, "cannot open: \(reason(errno))") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw failure(path, "cannot read: \(reason(errno))") }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > maximumSize { throw failure(path, "larger than \(maximumSize / 1024) KiB: not a configuration file") }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError(file: path, line: firstInvalidLine(bytes), message: "not UTF-8 text")
        }
        return .text(text)
    }

    /// The whole file as UTF-8 text; a missing file is an error like any other.
    public static func readText(_ path: String) throws(ConfigError) -> String {
        switch try read(path) {
        case .text(let text): return text
        case .missing: throw failure(path, "cannot open: \(reason(ENOENT))")
        }
    }

    public static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    private static func failure(_ path: String, _ message: String) -> ConfigError {
        ConfigError(file: path, line: 0, message: message)
    }

    private static func firstInvalidLine(_ bytes: [UInt8]) -> Int {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var line = 1
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): if scalar == "\n" { line += 1 }
            case .emptyInput, .error: return line
            }
        }
    }
}
