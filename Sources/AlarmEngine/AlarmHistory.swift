import AlarmKitCore
import AlarmModel
import FoundationEssentials
import Glibc

/// The latest history entries, kept in memory and appended to `history.jsonl` in the state
/// directory (one JSON object per line).
///
/// History is a convenience, not an alarm: it is appended without fsync, and a damaged line is
/// skipped on load. The file is rewritten with the newest ``capacity`` entries when it has grown
/// to twice that, so it stays small on an SD card. A file that exists but could not be read is
/// left as it is: new entries wait in memory, and the file is read again with each one until it
/// can be, so a failing read never makes the history start afresh over the old one.
struct AlarmHistory {
    let path: String
    let capacity: Int
    private let files: DurableFile
    private(set) var entries: [HistoryEntry] = []
    private var linesInFile = 0

    /// Why the file was unusable at start (not a regular file), and where it was kept: history
    /// starts empty then.
    private(set) var problem: String?
    /// Why the file could not be read, while it cannot: nothing is written to it meanwhile.
    private(set) var unread: StoreError?
    /// Entries recorded while the file could not be read, to be written once it has been.
    private var unwritten: [HistoryEntry] = []

    /// Reads the file, skipping damaged lines. One that is not a regular file is moved aside,
    /// never waited on; one that could not be read is left for a later read.
    init(directory: String, capacity: Int = 500, files: DurableFile = .system) {
        path = directory + "/history.jsonl"
        self.capacity = capacity
        self.files = files
        do throws(StoreError) {
            guard let bytes = try files.read(path) else { return }
            load(bytes)
        } catch where error.notARegularFile {
            let aside = try? files.moveAside(
                path, to: "\(path).bad-notafile-\(Int(Date().timeIntervalSince1970))", directory: directory)
            problem = "\(error)" + (aside.map { " (kept as \($0))" } ?? " (left in place: it cannot be moved aside)")
        } catch {
            unread = error
        }
    }

    private mutating func load(_ bytes: [UInt8]) {
        let decoder = JSONDecoder()
        var read: [HistoryEntry] = []
        linesInFile = 0
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            linesInFile += 1
            if let entry = try? decoder.decode(HistoryEntry.self, from: Data(line)) { read.append(entry) }
        }
        entries = Array((read + entries).suffix(capacity))
    }

    /// Records `new` entries; a write that fails is reported and the entries stay in memory.
    mutating func append(_ new: [HistoryEntry]) throws(StoreError) {
        guard !new.isEmpty else { return }
        entries.append(contentsOf: new)
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        if unread != nil {
            unwritten = Array((unwritten + new).suffix(capacity))
            guard readAgain() else { return }
        }
        let pending = unwritten.isEmpty ? new : unwritten
        unwritten = []
        if linesInFile + pending.count > 2 * capacity {
            try rewrite()
            return
        }
        let bytes = Self.lines(pending)
        let descriptor = files.calls.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoreError(operation: "open", path: path, errno: errno) }
        defer { _ = files.calls.close(descriptor) }
        try files.writeAll(bytes, to: descriptor, path: path)
        linesInFile += pending.count
    }

    /// Reads a file that could not be read before; `true` once it has been, with its entries
    /// before the ones recorded meanwhile.
    private mutating func readAgain() -> Bool {
        do throws(StoreError) {
            entries = Array(entries.suffix(unwritten.count))
            if let bytes = try files.read(path) { load(bytes) }
            unread = nil
            return true
        } catch {
            unread = error
            return false
        }
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
