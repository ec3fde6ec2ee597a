import AlarmKitCore
import AlarmModel
import FoundationEssentials
import Glibc

/// The store's append-only journal: the changes made since the last snapshot, each one framed
/// and checksummed, made durable by one `fdatasync`.
///
/// Format (version 1): a header line `alarmd-journal 1\n`, then entries, each a line
/// `<crc32 hex> <length>\n` followed by `length` bytes of JSON (``StoreJournalEntry``) and `\n`.
///
/// A crash during an append leaves a torn last entry (short, or with a bad checksum): that change
/// was never acknowledged, so loading drops it and cuts the file back to the last whole entry. A
/// bad entry with more data after it is damage, not a torn write: the file is kept aside.
final class StoreJournal {
    static let header = Array("alarmd-journal 1\n".utf8)

    let path: String
    let directory: String
    private let files: DurableFile
    /// The file's length after the last whole entry.
    private(set) var length = 0
    private(set) var entryCount = 0

    init(path: String, directory: String, files: DurableFile) {
        self.path = path
        self.directory = directory
        self.files = files
    }

    struct Contents {
        var entries: [StoreJournalEntry] = []
        /// Why the file is bad, if it is (then it should be kept aside).
        var damage: String?
        /// Not a regular file (`damage` says what): it holds no entries.
        var notARegularFile = false
        /// A torn last entry could not be cut off: the next save must not append behind it.
        var tornTailRemains = false
    }

    /// Reads every whole entry; a torn last entry is dropped and cut off the file.
    ///
    /// - Throws: ``StoreError`` when the file exists but could not be read (its entries are
    ///   unknown: it must be left as it is).
    func read() throws(StoreError) -> Contents {
        entryCount = 0
        let bytes: [UInt8]
        do throws(StoreError) {
            guard let read = try files.read(path) else { return Contents() }
            bytes = read
        } catch where error.notARegularFile {
            return Contents(damage: error.description, notARegularFile: true)
        }
        var contents = Contents()
        guard bytes.count >= Self.header.count, Array(bytes.prefix(Self.header.count)) == Self.header else {
            // A header that is cut short is a crash while the file was being created.
            if bytes.count < Self.header.count, Self.header.starts(with: bytes) {
                contents.tornTailRemains = !cut(to: 0)
                return contents
            }
            contents.damage = "not an alarmd journal, or a newer version (bad header)"
            return contents
        }
        var offset = Self.header.count
        parsing: while offset < bytes.count {
            switch Self.parseEntry(bytes, at: offset) {
            case .entry(let entry, let next):
                contents.entries.append(entry)
                entryCount += 1
                offset = next
            case .torn:
                contents.tornTailRemains = !cut(to: offset)
                break parsing
            case .damaged(let reason):
                contents.damage = "entry \(contents.entries.count + 1) at byte \(offset): \(reason)"
                entryCount = 0
                return contents
            }
        }
        length = offset
        return contents
    }

    private enum Parsed {
        case entry(StoreJournalEntry, next: Int)
        /// Incomplete, or bad with nothing after it: an append the crash interrupted.
        case torn
        case damaged(String)
    }

    private static func parseEntry(_ bytes: [UInt8], at offset: Int) -> Parsed {
        // Some file systems extend the file before its data reaches the disk: a power cut then
        // leaves zeros where the last append was.
        if bytes[offset...].allSatisfy({ $0 == 0 }) { return .torn }
        guard let newline = bytes[offset...].prefix(64).firstIndex(of: UInt8(ascii: "\n")) else {
            return bytes.count - offset < 64 ? .torn : .damaged("no entry header")
        }
        let fields = String(decoding: bytes[offset..<newline], as: UTF8.self).split(separator: " ")
        guard fields.count == 2, let checksum = UInt32(fields[0], radix: 16), let count = Int(fields[1]), count >= 0 else {
            return .damaged("bad entry header")
        }
        let start = newline + 1
        let end = start + count
        guard end < bytes.count else { return .torn }
        let body = bytes[start..<end]
        let isLast = end + 1 == bytes.count
        guard bytes[end] == UInt8(ascii: "\n"), CRC32.checksum(body) == checksum else {
            return isLast ? .torn : .damaged("checksum mismatch")
        }
        do {
            return .entry(try JSONDecoder().decode(StoreJournalEntry.self, from: Data(body)), next: end + 1)
        } catch {
            return .damaged("malformed content: \(error)")
        }
    }

    /// Appends one entry and makes it durable before returning. On failure the file is cut back
    /// to where it was, so a refused change never reappears on the next start.
    ///
    /// The file is opened for each append: an open costs microseconds beside the `fdatasync`,
    /// and nothing stale is held if the file is replaced or removed behind the daemon's back.
    func append(_ body: [UInt8]) throws(StoreError) {
        let descriptor = try openForAppending()
        defer { _ = files.calls.close(descriptor) }
        var bytes = Array("\(String(CRC32.checksum(body[...]), radix: 16)) \(body.count)\n".utf8)
        bytes += body
        bytes.append(UInt8(ascii: "\n"))
        do throws(StoreError) {
            try files.writeAll(bytes, to: descriptor, path: path)
            // fdatasync covers the new length too: the entry is there after a power cut.
            guard files.calls.fdatasync(descriptor) == 0 else { throw StoreError(operation: "fdatasync", path: path, errno: errno) }
        } catch {
            if files.calls.ftruncate(descriptor, off_t(length)) != 0 || files.calls.fdatasync(descriptor) != 0 {
                // The file may still hold the refused entry: it must not be used before a snapshot.
                throw StoreError(operation: error.operation, path: path, errno: error.errno, journalUnusable: true)
            }
            throw error
        }
        length += bytes.count
        entryCount += 1
    }

    /// Empties the journal (after a snapshot holding every entry is durable), also of anything
    /// after its last whole entry.
    func reset() throws(StoreError) {
        // No file is an empty journal: nothing to create.
        guard files.calls.access(path, F_OK) == 0 else {
            forgetEntries()
            return
        }
        let descriptor = try openForAppending()
        defer { _ = files.calls.close(descriptor) }
        guard files.calls.ftruncate(descriptor, off_t(Self.header.count)) == 0 else {
            throw StoreError(operation: "ftruncate", path: path, errno: errno)
        }
        guard files.calls.fdatasync(descriptor) == 0 else { throw StoreError(operation: "fdatasync", path: path, errno: errno) }
        forgetEntries()
    }

    /// The file holds only the header now (or is gone).
    func forgetEntries() {
        entryCount = 0
        length = Self.header.count
    }

    /// Opens the journal for appending, creating it (with its header, durably) if needed.
    private func openForAppending() throws(StoreError) -> Int32 {
        let existed = files.calls.access(path, F_OK) == 0
        // O_APPEND: every write lands at the end, also after reset() cut the file shorter.
        let descriptor = files.calls.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoreError(operation: "open", path: path, errno: errno) }
        var status = stat()
        do throws(StoreError) {
            guard files.calls.fstat(descriptor, &status) == 0 else { throw StoreError(operation: "fstat", path: path, errno: errno) }
            if status.st_size < Self.header.count {
                // New (or cut short at creation): start it with the header, and make its name durable.
                guard files.calls.ftruncate(descriptor, 0) == 0 else { throw StoreError(operation: "ftruncate", path: path, errno: errno) }
                try files.writeAll(Self.header, to: descriptor, path: path)
                guard files.calls.fdatasync(descriptor) == 0 else { throw StoreError(operation: "fdatasync", path: path, errno: errno) }
                if !existed { try files.syncDirectory(directory) }
                forgetEntries()
            } else {
                length = Int(status.st_size)
            }
        } catch {
            _ = files.calls.close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Cuts a torn tail off, durably, so the next append does not follow garbage; `false` if it
    /// could not be (the entries before it were read all the same).
    private func cut(to size: Int) -> Bool {
        let opened = files.calls.open(path, O_WRONLY | O_CLOEXEC, 0)
        guard opened >= 0 else { return false }
        defer { _ = files.calls.close(opened) }
        guard files.calls.ftruncate(opened, off_t(size)) == 0, files.calls.fdatasync(opened) == 0 else { return false }
        length = size
        return true
    }
}

/// One change in the journal: the alarms written or removed, and the missed alarms and
/// authorizations as they were then (optional: files written by earlier versions carry them only
/// when they changed). Applying entries in order to the snapshot they followed
/// gives the state; applying them again to a later snapshot that already holds them changes
/// nothing (each one only sets values), so a crash between a snapshot and the journal's reset
/// loses nothing and duplicates nothing.
struct StoreJournalEntry: Codable, Sendable {
    var savedAt: Date
    var upserted: [AlarmRecord]
    var removed: [RemovedAlarm]
    var missedAlarms: [MissedAlarm]?
    var authorizations: [AuthorizationRecord]?

    /// `state` with `entries` applied in order.
    static func apply(_ entries: [StoreJournalEntry], to state: StoredState) -> StoredState {
        guard !entries.isEmpty else { return state }
        var state = state
        var alarms = Dictionary(state.scheduler.alarms.map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
        for entry in entries {
            for removal in entry.removed {
                if let owner = removal.owner {
                    alarms[AlarmKey(owner: owner, id: removal.id)] = nil
                } else {
                    alarms = alarms.filter { $0.key.id != removal.id }
                }
            }
            for record in entry.upserted { alarms[record.key] = record }
            if let missedAlarms = entry.missedAlarms { state.scheduler.missedAlarms = missedAlarms }
            if let authorizations = entry.authorizations { state.authorizations = authorizations }
            state.savedAt = entry.savedAt
        }
        // In creation order, as the scheduler's snapshot is.
        state.scheduler.alarms = alarms.values.sorted { $0.sequenceNumber < $1.sequenceNumber }
        return state
    }
}
