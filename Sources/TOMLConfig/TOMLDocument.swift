/// A parsed configuration file in a strict subset of TOML 1.0, every value with its line.
///
/// Supported: `#` comments; `[table]` and `[table.sub]` headers; `key = value` with bare keys
/// (`A-Z a-z 0-9 _ -`); basic strings `"..."` with the escapes `\" \\ \b \t \n \f \r \uXXXX
/// \UXXXXXXXX`; literal strings `'...'`; integers (decimal, `0x` hex, `0o` octal, `0b` binary,
/// with `_` between digits); floats (`1.5`, `2e-3`, `inf`, `nan`); `true` and `false`; and arrays
/// of these **on one line**. Refused with a message that says so: multi-line strings and arrays,
/// inline tables `{...}`, arrays of tables `[[...]]`, dotted and quoted keys, dates and times.
///
/// Refused as TOML refuses them: a key or table defined twice, a key that is also a table, a
/// header inside a value. Keys are case-sensitive.
public struct TOMLDocument: Hashable, Sendable {
    /// The name the caller gave the text (its path), used in every message.
    public let file: String
    /// In file order.
    public let entries: [TOMLEntry]
    /// In file order.
    public let tables: [TOMLTable]
    private let entryIndex: [String: Int]
    private let tableIndex: [String: Int]

    public subscript(key: String) -> TOMLEntry? {
        entryIndex[key].map { entries[$0] }
    }

    /// The header `[name]`, if the document has one. Tables that exist only as the prefix of
    /// another (`display` for `[display.pins]`) have no header.
    public func table(_ name: String) -> TOMLTable? {
        tableIndex[name].map { tables[$0] }
    }

    /// Whether `name` is a table: a header, or the prefix of one.
    public func isTable(_ name: String) -> Bool {
        tableIndex[name] != nil || tables.contains { $0.name.hasPrefix(name + ".") }
    }

    /// Parses `text`; `file` names it in errors. Throws for the first line not in the subset.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> TOMLDocument {
        var builder = Builder(file: file)
        var lineNumber = 0
        // Split on scalars: as Characters, "\r\n" is one grapheme and never equals "\n".
        for rawLine in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = Array(rawLine)
            if line.last == "\r" { line.removeLast() }
            if lineNumber == 1, line.first == "\u{FEFF}" { line.removeFirst() }
            try builder.add(line, number: lineNumber)
        }
        return TOMLDocument(
            file: file, entries: builder.entries, tables: builder.tables,
            entryIndex: builder.entryIndex, tableIndex: builder.tableIndex
        )
    }

    private init(file: String, entries: [TOMLEntry], tables: [TOMLTable], entryIndex: [String: Int], tableIndex: [String: Int]) {
        self.file = file
        self.entries = entries
        self.tables = tables
        self.entryIndex = entryIndex
        self.tableIndex = tableIndex
    }
}

extension TOMLDocument {
    /// Collects lines into entries and tables and enforces TOML's rules between them.
    private struct Builder {
        let file: String
        var entries: [TOMLEntry] = []
        var tables: [TOMLTable] = []
        var entryIndex: [String: Int] = [:]
        var tableIndex: [String: Int] = [:]
        /// Every table name, with or without a header, and the line that first made it one.
        var tableLines: [String: Int] = [:]
        var currentTable = ""

        init(file: String) {
            self.file = file
        }

        mutating func add(_ line: [Unicode.Scalar], number: Int) throws(ConfigError) {
            var scanner = TOMLLineScanner(line)
            scanner.skipWhitespace()
            if scanner.atEndOrComment { return }
            do throws(TOMLLineScanner.Failure) {
                if scanner.peek == "[" {
                    try addTable(scanner.header(), number: number)
                } else {
                    let key = try scanner.key()
                    let fullKey = currentTable.isEmpty ? key : currentTable + "." + key
                    do throws(TOMLLineScanner.Failure) {
                        let value = try scanner.valueAndEnd()
                        try addEntry(TOMLEntry(key: fullKey, value: value, line: number))
                    } catch {
                        throw TOMLLineScanner.Failure(error.message, key: fullKey)
                    }
                }
            } catch {
                throw ConfigError(file: file, line: number, key: error.key, message: error.message)
            }
        }

        private mutating func addTable(_ name: String, number: Int) throws(TOMLLineScanner.Failure) {
            if let first = tableIndex[name] {
                throw .init("duplicate table [\(name)] (first on line \(tables[first].line))", key: name)
            }
            var prefix = ""
            for segment in name.split(separator: ".") {
                prefix += (prefix.isEmpty ? "" : ".") + segment
                if let value = entryIndex[prefix] {
                    throw .init("[\(name)] redefines the value \(prefix) on line \(entries[value].line)", key: name)
                }
                if tableLines[prefix] == nil { tableLines[prefix] = number }
            }
            tableIndex[name] = tables.count
            tables.append(TOMLTable(name: name, line: number))
            currentTable = name
        }

        private mutating func addEntry(_ entry: TOMLEntry) throws(TOMLLineScanner.Failure) {
            if let first = entryIndex[entry.key] {
                throw .init("duplicate key (first on line \(entries[first].line))")
            }
            if let table = tableLines[entry.key] {
                throw .init("already a table (line \(table))")
            }
            entryIndex[entry.key] = entries.count
            entries.append(entry)
        }
    }
}
