/// A configuration file that cannot be used, reported as one line naming the file, the line and
/// the key: `board/rpi4b.toml:12: gpio.stop: expected a line name or offset, found boolean true`.
///
/// Thrown by ``TOMLDocument/parse(_:file:)`` for syntax errors and by ``ConfigReader`` for values
/// of the wrong type or out of range. Configuration errors stop the daemon before it touches any
/// hardware: the description is meant for the journal and for the person editing the file.
public struct ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file as the caller named it (a path, or a label for text that came from elsewhere).
    public var file: String
    /// The 1-based line; 0 when the problem is not on a line (a missing key in a missing table,
    /// a file that cannot be read).
    public var line: Int
    /// The dotted key (`display.pins.rs`) or table name, when the problem belongs to one.
    public var key: String?
    public var message: String

    public init(file: String, line: Int, key: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    /// `FILE:LINE: KEY: message`; the line and the key are left out when there are none.
    public var description: String {
        diagnosticLine(file: file, line: line, key: key, message: message)
    }
}

/// Something in a configuration file that was ignored: a key or table nobody reads, most often a
/// typo (`buton_bias`). Warnings never stop the daemon; they are logged once at start.
public struct ConfigWarning: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var key: String
    /// What was ignored, with a suggestion when a known key is spelled alike.
    public var message: String

    public init(file: String, line: Int, key: String, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    /// `FILE:LINE: KEY: message`, the same shape as ``ConfigError``.
    public var description: String {
        diagnosticLine(file: file, line: line, key: key, message: message)
    }
}

func diagnosticLine(file: String, line: Int, key: String?, message: String) -> String {
    var text = file
    if line > 0 { text += ":\(line)" }
    if let key { text += ": \(key)" }
    return text + ": " + message
}
