import AlarmBoard
import Glibc

/// Reading configuration files, on Glibc so that the module needs no Foundation.
enum ConfigFile {
    /// Configuration files are small; anything bigger is not one.
    static let maximumSize = 1 << 20

    /// What reading a file found.
    enum Contents {
        case text(String)
        /// The file does not exist (ENOENT).
        case missing
    }

    /// The whole file as UTF-8 text, or ``Contents/missing``.
    /// - Throws: ``ConfigError`` (line 0) with the system's reason, or the line of the first
    ///   byte that is not UTF-8.
    static func read(_ path: String) throws(ConfigError) -> Contents {
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

    /// The first line of a small text file with trailing NULs and whitespace removed (device-tree
    /// strings end in NUL), or `nil` if it cannot be read.
    static func firstLine(_ path: String) -> String? {
        guard case .text(let text)? = try? read(path) else { return nil }
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        return String(line.unicodeScalars.reversed().drop { $0 == "\0" || $0 == " " || $0 == "\t" || $0 == "\r" }.reversed()
            .reduce(into: "") { $0.unicodeScalars.append($1) })
    }

    /// The 1-based line holding the first byte that does not decode.
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

    private static func failure(_ path: String, _ message: String) -> ConfigError {
        ConfigError(file: path, line: 0, message: message)
    }

    static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
