import AlarmKitCore
import AlarmProtocol
import FoundationEssentials
import Glibc

/// The latest history entries, kept in memory and appended to `history.jsonl` in the state
/// directory (one JSON object per line).
///
/// History is a convenience, not an alarm: it is appended without fsync, and a damaged line is
/// skipped on load. The file is rewritten with the newest ``capacity`` entries when it has grown
/// to twice that, so it stays small on an SD card.
struct AlarmHistory {
    let path: String
    let capacity: Int
    private let files: DurableFile
    private(set) var entries: [HistoryEntry] = []
    private var linesInFile = 0

    /// Why the file could not be read at start, and where it was kept: history starts empty then.
    private(set) var problem: String?

    /// Reads the file, skipping damaged lines. One that cannot be read at all (not a regular
    /// file, not readable by the daemon) is moved aside, never waited on.
    init(directory: String, capacity: Int = 500, files: DurableFile = .system) {
        path = directory + "/history.jsonl"
        self.capacity = capacity
        self.files = files
        let bytes: [UInt8]
        do throws(StoreError) {
            guard let read = try files.read(path) else { return }
            bytes = read
        } catch {
            let aside = try? files.moveAside(
                path, to: "\(path).bad-unreadable-\(Int(Date().timeIntervalSince1970))", directory: directory)
            problem = "\(error)" + (aside.map { " (kept as \($0))" } ?? " (left in place: it cannot be moved aside)")
            return
        }
        let decoder = JSONDecoder()
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            linesInFile += 1
            if let entry = try? decoder.decode(HistoryEntry.self, from: Data(line)) { entries.append(entry) }
        }
        entries = Array(entries.suffix(capacity))
    }

    /// Records `new` entries; a write that fails is reported and the entries stay in memory.
    mutating func append(_ new: [HistoryEntry]) throws(StoreError) {
        guard !new.isEmpty else { return }
        entries.append(contentsOf: new)
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        if linesInFile + new.count > 2 * capacity {
            try rewrite()
            return
        }
        let bytes = Self.lines(new)
        let descriptor = files.calls.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoreError(operation: "open", path: path, errno: errno) }
        defer { _ = files.calls.close(descriptor) }
        try files.writeAll(bytes, to: descriptor, path: path)
        linesInFile += new.count
    }

    /// One JSON line per entry, keys sorted.
    private static func lines(_ entries: [HistoryEntry]) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var bytes: [UInt8] = []
        for entry in entries {
            guard let line = try? encoder.encode(entry) else { continue }
            bytes += line
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    private mutating func rewrite() throws(StoreError) {
        let bytes = Self.lines(entries)
        let temporary = path + ".new"
        let descriptor = files.calls.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoreError(operation: "open", path: temporary, errno: errno) }
        do {
            try files.writeAll(bytes, to: descriptor, path: temporary)
        } catch {
            _ = files.calls.close(descriptor)
            throw error
        }
        _ = files.calls.close(descriptor)
        guard files.calls.rename(temporary, path) == 0 else { throw StoreError(operation: "rename", path: path, errno: errno) }
        linesInFile = entries.count
    }
}
