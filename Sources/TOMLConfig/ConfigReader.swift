/// Takes typed values out of a ``TOMLDocument`` by dotted key, and afterwards names every key that
/// nobody asked for.
///
/// ```swift
/// var reader = ConfigReader(try TOMLDocument.parse(text, file: path))
/// let chip = try reader.require("gpio.chip", as: .nonEmptyString)
/// let mixer = try reader.optional("sound.mixer", as: .nonEmptyString)
/// let debounce = try reader.value("gpio.debounce_ms", as: .integer(in: 0...500), default: 30)
/// for warning in reader.unknownKeys { logger.warning("Configuration key ignored", metadata: ["config.warning": "\(warning)"]) }
/// ```
///
/// Every error names the file, the line and the key. A key counts as known once it has been asked
/// for, present or not, so ask for every key the format has before reading ``unknownKeys``.
public struct ConfigReader: Sendable {
    public let document: TOMLDocument
    private var consulted: Set<String> = []

    public init(_ document: TOMLDocument) {
        self.document = document
    }

    public var file: String { document.file }

    /// The value at `key`; missing is an error.
    public mutating func require<Value>(_ key: String, as type: ConfigType<Value>) throws(ConfigError) -> Value {
        guard let value = try optional(key, as: type) else {
            throw error(key, "required key is missing; expected \(type.expected)")
        }
        return value
    }

    /// The value at `key`, or `nil` if the document has none.
    public mutating func optional<Value>(_ key: String, as type: ConfigType<Value>) throws(ConfigError) -> Value? {
        consulted.insert(key)
        guard let entry = document[key] else {
            if document.isTable(key) {
                let line = document.table(key)?.line ?? lineOfTable(containing: key + ".")
                throw ConfigError(file: file, line: line, key: key, message: "expected \(type.expected), found a table")
            }
            return nil
        }
        switch type.convert(entry.value) {
        case .success(let value): return value
        case .failure(let refusal): throw ConfigError(file: file, line: entry.line, key: key, message: refusal.message)
        }
    }

    public mutating func value<Value>(_ key: String, as type: ConfigType<Value>, default defaultValue: Value) throws(ConfigError) -> Value {
        try optional(key, as: type) ?? defaultValue
    }

    /// Whether the document has the table `name` (a header or the prefix of one). Asking makes an
    /// empty `[name]` a known table.
    public mutating func hasTable(_ name: String) -> Bool {
        consulted.insert(name)
        return document.isTable(name)
    }

    /// Whether the document has a value at `key`. Asking does not make the key known.
    public func contains(_ key: String) -> Bool {
        document[key] != nil
    }

    /// The line of `key`'s value, else of the header of the nearest table containing it, else 0.
    public func line(of key: String) -> Int {
        if let entry = document[key] { return entry.line }
        var name = key
        while let dot = name.lastIndex(of: ".") {
            name = String(name[..<dot])
            if let table = document.table(name) { return table.line }
        }
        return document.table(key)?.line ?? 0
    }

    /// An error about `key` at ``line(of:)``, for checks the types cannot express (two keys
    /// naming the same pin).
    public func error(_ key: String, _ message: String) -> ConfigError {
        ConfigError(file: file, line: line(of: key), key: key, message: message)
    }

    /// Every key that was never asked for, and every table with no known key and never asked
    /// for, in file order. Each message suggests a known key when one is a likely misspelling.
    public var unknownKeys: [ConfigWarning] {
        var warnings: [ConfigWarning] = []
        for entry in document.entries where !consulted.contains(entry.key) {
            warnings.append(ConfigWarning(file: file, line: entry.line, key: entry.key, message: unknownMessage("unknown key", entry.key)))
        }
        for table in document.tables where !isKnownTable(table.name) {
            if document.entries.contains(where: { $0.key.hasPrefix(table.name + ".") }) { continue }  // its keys warn
            warnings.append(ConfigWarning(file: file, line: table.line, key: table.name, message: unknownMessage("unknown table", table.name)))
        }
        return warnings.sorted { ($0.line, $0.key) < ($1.line, $1.key) }
    }

    private func isKnownTable(_ name: String) -> Bool {
        consulted.contains(name) || consulted.contains { $0.hasPrefix(name + ".") }
    }

    private func lineOfTable(containing prefix: String) -> Int {
        document.tables.first { $0.name.hasPrefix(prefix) }?.line ?? 0
    }

    private func unknownMessage(_ what: String, _ key: String) -> String {
        let suggestion = consulted
            .filter { !contains($0) && !document.isTable($0) && Self.editDistance($0, key, limit: 2) <= 2 }
            .sorted()
            .first
        return what + ", ignored" + (suggestion.map { " (did you mean \($0)?)" } ?? "")
    }

    /// Levenshtein distance, giving up (returning `limit + 1`) once it exceeds `limit`.
    static func editDistance(_ a: String, _ b: String, limit: Int) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if abs(a.count - b.count) > limit { return limit + 1 }
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            if current.min()! > limit { return limit + 1 }
            previous = current
        }
        return previous[b.count]
    }
}
