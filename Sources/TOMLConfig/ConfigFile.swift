import Glibc
import LinuxSupport

/// Reading configuration files (board profiles, `alarmd.toml`), without Foundation.
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
        let bytes: [UInt8]
        switch SystemFile.read(path, maximumSize: maximumSize) {
        case .success(let contents): bytes = contents
        case .failure(let error) where !error.opened:
            if error.code == ENOENT { return .missing }
            throw failure(path, "cannot open: \(reason(error.code))")
        case .failure(let error) where error.code == EFBIG:
            throw failure(path, "larger than \(maximumSize / 1024) KiB: not a configuration file")
        case .failure(let error):
            throw failure(path, "cannot read: \(reason(error.code))")
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
