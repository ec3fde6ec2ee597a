import Logging

/// A swift-log handler for a systemd service's stderr: one line per entry, opened by the
/// sd-daemon priority prefix that journald reads (`SyslogLevelPrefix=yes`, the default), then the
/// message, then the metadata as `key=value` sorted by key (`<6>Alarm alerting alarm.id=3F2A...`).
/// No timestamp: journald adds one.
///
/// An entry stays one line whatever it holds: newlines and other control characters are escaped
/// (`\n`, `\t`, `\x1b`), as are backslashes (`\\`), so the escaping can be undone. A metadata value
/// with a space, `"` or `=` is quoted. An event's `error` is logged as the key `error`.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let output: JournalOutput

    /// `label` is not printed: the journal names the unit.
    public init(
        label: String = "", output: JournalOutput = .standardError,
        metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider
    ) {
        self.output = output
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        if let error = event.error { merged["error"] = "\(error)" }
        output.write(Self.line(level: event.level, message: "\(event.message)", metadata: merged))
    }

    /// The line for one entry, ending in a newline.
    static func line(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var line = "<\(priority(of: level))>" + escaped(message)
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += " " + escaped(key) + "=" + quotedIfNeeded(escaped("\(value)"))
        }
        return line + "\n"
    }

    /// The syslog priority of a swift-log level (`<3>` is err, `<7>` debug).
    public static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .critical: 2
        case .error: 3
        case .warning: 4
        case .notice: 5
        case .info: 6
        case .debug, .trace: 7
        }
    }

    /// `text` with backslashes and control characters escaped, so it is one line.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\\" || isControl($0) }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isControl(scalar):
                let hex = String(scalar.value, radix: 16)
                result += scalar.value < 0x100 ? "\\x" + (hex.count < 2 ? "0" : "") + hex : "\\u{\(hex)}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    private static func quotedIfNeeded(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) else { return value }
        return "\"" + value.replacing("\"", with: "\\\"") + "\""
    }
}

extension Logger {
    /// A program's logger for the journal: every entry through ``JournalLogHandler``, from `level` up.
    public static func journal(_ label: String, level: Logger.Level, output: JournalOutput = .standardError) -> Logger {
        var logger = Logger(label: label, factory: { JournalLogHandler(label: $0, output: output) })
        logger.logLevel = level
        return logger
    }
}
