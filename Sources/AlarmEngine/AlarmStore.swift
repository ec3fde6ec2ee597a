import FoundationEssentials
import Glibc
import Logging

/// The engine's durable state on disk: a snapshot in two copies, and a journal of the changes
/// made since.
///
/// Snapshot format (version 1): one header line `alarmd-store 1 <crc32 hex> <length>\n`, then
/// `length` bytes of JSON (``StoredState``). The checksum tells a damaged file from a good one.
/// A snapshot replaces the primary file atomically (temporary file, fsync, rename, directory
/// fsync) and then the backup the same way, with the same bytes.
///
/// A change is made durable by appending it to the journal (`alarms.journal`, see
/// ``StoreJournal``) with one `fdatasync`, not by rewriting the snapshot: four fsyncs and the
/// whole store per change became one small write. Every ``compactionEntries`` changes (and at
/// every start) a snapshot holding them is written and the journal emptied.
///
/// A file that cannot be read, is damaged or has an unknown version is never overwritten: it is
/// renamed aside (`alarms.store.bad-<reason>-<seconds>`, `alarms.journal.bad-...`) with a log
/// line, and the other copy is used. So neither a crash at any point nor one damaged snapshot
/// copy loses an acknowledged change, and a bad file never crash-loops the daemon. (The journal
/// has one copy: damage to it loses the changes since the last snapshot, at most
/// ``compactionEntries``.)
public final class AlarmStore {
    /// The file format version this build writes and reads.
    public static let formatVersion = 1
    static let magic = "alarmd-store"

    public let directory: String
    /// After this many journal entries a snapshot is due.
    public let compactionEntries: Int
    private let logger: Logger
    private let journal: StoreJournal
    /// A failed append could not be taken back: the next save must be a snapshot.
    private var journalNeedsSnapshot = false

    public init(directory: String, logger: Logger, compactionEntries: Int = 64) {
        self.directory = directory
        self.logger = logger
        self.compactionEntries = max(compactionEntries, 1)
        journal = StoreJournal(path: directory + "/alarms.journal", directory: directory)
    }

    public var primaryPath: String { directory + "/alarms.store" }
    public var backupPath: String { directory + "/alarms.store.backup" }
    public var journalPath: String { journal.path }

    /// What loading found.
    public struct Loaded: Sendable {
        /// The state to resume from; `nil` on a first start (or when every copy was bad).
        public var state: StoredState?
        /// Files that were bad and moved aside, for the log and the display.
        public var problems: [String]
        /// Changes found in the journal (applied to `state`): a snapshot is due.
        public var journalEntries = 0
    }

    /// Loads the newest good copy. Never throws for a bad file: it is moved aside and logged.
    ///
    /// - Throws: ``StoreError`` only if the directory cannot be created, or a bad file cannot be
    ///   moved aside (then saving would destroy it, so the engine must not start on this store).
    public func load() throws(StoreError) -> Loaded {
        try DurableFile.makeDirectory(directory)
        var loaded = try loadSnapshot()
        let contents = try journal.read()
        if let damage = contents.damage {
            let aside = try DurableFile.moveAside(
                journal.path, to: "\(journal.path).bad-corrupt-\(Int(Date().timeIntervalSince1970))", directory: directory)
            logger.error(
                "Store journal is damaged; kept aside, its changes before the damage are used",
                metadata: ["store.path": "\(journal.path)", "store.reason": "\(damage)", "store.keptAs": "\(aside)"])
            loaded.problems.append("\(journal.path): \(damage) (kept as \(aside))")
        }
        if !contents.entries.isEmpty {
            loaded.state = StoreJournalEntry.apply(
                contents.entries, to: loaded.state ?? StoredState(savedAt: Date(timeIntervalSince1970: 0)))
            loaded.journalEntries = contents.entries.count
        }
        return loaded
    }

    private func loadSnapshot() throws(StoreError) -> Loaded {
        var problems: [String] = []
        let primary = try readCopy(primaryPath, problems: &problems)
        if let primary {
            // The backup only needs to be intact, not decoded: that would double the start-up time.
            if case .none = try readCopy(backupPath, decodingContent: false, problems: &problems) {
                logger.debug("Store backup missing or bad; the next save rewrites it", metadata: ["store.path": "\(backupPath)"])
            }
            return Loaded(state: primary, problems: problems)
        }
        let backup = try readCopy(backupPath, problems: &problems)
        if backup != nil {
            logger.warning("Store primary copy unusable; resuming from the backup", metadata: ["store.path": "\(backupPath)"])
        } else if !problems.isEmpty {
            logger.critical("Every store copy was bad; starting with no alarms", metadata: ["store.directory": "\(directory)"])
        }
        return Loaded(state: backup, problems: problems)
    }

    /// Makes one change durable by appending `entry` (a ``StoreJournalEntry``'s JSON) to the
    /// journal; when this returns, a power cut loses nothing of it. If the journal cannot be used
    /// (an earlier append could not be taken back), a snapshot from `snapshot` is written instead.
    ///
    /// When this throws, the change is not on disk (a failed append is cut off again).
    func commit(entry: [UInt8], snapshot: () throws -> [UInt8]) throws {
        if journalNeedsSnapshot {
            try save(body: try snapshot())
            return
        }
        do throws(StoreError) {
            try journal.append(entry)
        } catch {
            if error.journalUnusable { journalNeedsSnapshot = true }
            throw error
        }
    }

    /// Whether the journal holds changes the snapshot does not.
    public var hasJournalEntries: Bool { journal.entryCount > 0 }

    /// Whether enough changes are in the journal that a snapshot is due.
    public var isCompactionDue: Bool { journal.entryCount >= compactionEntries }

    /// Writes `state` durably as a snapshot and empties the journal: when this returns, a power
    /// cut loses nothing of it.
    ///
    /// The change is durable once the primary copy is; a backup that cannot be written is logged
    /// and rewritten by the next save. When this throws, the change is not on disk: if the primary
    /// was replaced but its directory could not be synced, the previous content is put back, so a
    /// refused change never reappears after a restart.
    public func save(_ state: StoredState) throws {
        try save(framed: Self.encode(state))
    }

    /// Writes an already encoded state (see `EncodedAlarmCache`); as ``save(_:)``.
    func save(body: [UInt8]) throws {
        try save(framed: Self.frame(body))
    }

    private func save(framed bytes: [UInt8]) throws {
        let previous = try? DurableFile.read(primaryPath)
        do throws(StoreError) {
            try DurableFile.replace(primaryPath, with: bytes, directory: directory)
        } catch {
            if error.replacedFile { restorePrimary(previous) }
            throw error
        }
        journalNeedsSnapshot = false
        do {
            try DurableFile.replace(backupPath, with: bytes, directory: directory)
        } catch {
            logger.error(
                "Store backup could not be written; the primary copy holds every change",
                metadata: ["store.path": "\(backupPath)", "store.error": "\(error)"])
        }
        // The snapshot holds every change of the journal now. A journal that cannot be emptied is
        // moved aside: it may hold a refused change (an append that could not be taken back).
        if access(journal.path, F_OK) == 0 {
            do throws(StoreError) {
                try journal.reset()
            } catch {
                let aside = try? DurableFile.moveAside(
                    journal.path, to: "\(journal.path).bad-unemptied-\(Int(Date().timeIntervalSince1970))",
                    directory: directory)
                logger.error(
                    "Store journal could not be emptied after a snapshot; kept aside",
                    metadata: ["store.path": "\(journal.path)", "store.error": "\(error)", "store.keptAs": "\(aside ?? "not moved")"])
            }
        }
    }

    /// Best effort: the save is already failing, and its error is what the caller hears.
    private func restorePrimary(_ previous: [UInt8]?) {
        if let previous {
            try? DurableFile.replace(primaryPath, with: previous, directory: directory)
        } else {
            unlink(primaryPath)
            try? DurableFile.syncDirectory(directory)
        }
    }

    /// The bytes of a store file holding `state`.
    public static func encode(_ state: StoredState) throws -> [UInt8] {
        frame(Array(try JSONEncoder().encode(state)))
    }

    /// The header line and the body.
    static func frame(_ body: [UInt8]) -> [UInt8] {
        let header = "\(magic) \(formatVersion) \(String(CRC32.checksum(body), radix: 16)) \(body.count)\n"
        return Array(header.utf8) + body
    }

    /// Why a store file's bytes are not a valid state.
    public enum DecodingProblem: Error, Hashable, Sendable, CustomStringConvertible {
        case notAStoreFile
        case unsupportedVersion(Int)
        case truncated(expected: Int, found: Int)
        case checksumMismatch
        case malformedContent(String)

        public var description: String {
            switch self {
            case .notAStoreFile: "not an alarmd store file (bad header)"
            case .unsupportedVersion(let version): "written by a newer alarmd (format version \(version))"
            case .truncated(let expected, let found): "truncated: \(found) of \(expected) bytes"
            case .checksumMismatch: "damaged: checksum mismatch"
            case .malformedContent(let reason): "malformed content: \(reason)"
            }
        }

        var fileTag: String {
            switch self {
            case .unsupportedVersion(let version): "version\(version)"
            default: "corrupt"
            }
        }
    }

    /// Parses a store file's bytes.
    public static func decode(_ bytes: [UInt8]) throws(DecodingProblem) -> StoredState {
        let body = try verify(bytes)
        do {
            return try JSONDecoder().decode(StoredState.self, from: Data(body))
        } catch {
            throw .malformedContent("\(error)")
        }
    }

    /// Checks a store file's header, length and checksum; returns its body.
    static func verify(_ bytes: [UInt8]) throws(DecodingProblem) -> ArraySlice<UInt8> {
        guard let newline = bytes.prefix(128).firstIndex(of: UInt8(ascii: "\n")) else { throw .notAStoreFile }
        let fields = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ")
        guard fields.count == 4, fields[0] == magic, let version = Int(fields[1]) else { throw .notAStoreFile }
        guard version == formatVersion else { throw .unsupportedVersion(version) }
        guard let checksum = UInt32(fields[2], radix: 16), let length = Int(fields[3]), length >= 0 else {
            throw .notAStoreFile
        }
        let body = bytes[(newline + 1)...]
        guard body.count == length else { throw .truncated(expected: length, found: body.count) }
        guard CRC32.checksum(body) == checksum else { throw .checksumMismatch }
        return body
    }

    /// Reads one copy; a bad one is moved aside and reported, and `nil` returned. Without
    /// `decodingContent`, an intact copy is reported as the empty state.
    private func readCopy(
        _ path: String, decodingContent: Bool = true, problems: inout [String]
    ) throws(StoreError) -> StoredState? {
        let bytes: [UInt8]?
        var tag = "unreadable"
        var reason: String
        do {
            bytes = try DurableFile.read(path)
            guard let bytes else { return nil }
            do {
                guard decodingContent else {
                    _ = try Self.verify(bytes)
                    return StoredState(savedAt: Date(timeIntervalSince1970: 0))
                }
                return try Self.decode(bytes)
            } catch {
                reason = error.description
                tag = error.fileTag
            }
        } catch {
            reason = error.description
        }
        let aside = try DurableFile.moveAside(
            path, to: "\(path).bad-\(tag)-\(Int(Date().timeIntervalSince1970))", directory: directory)
        logger.error(
            "Store file is bad; kept aside and not used",
            metadata: ["store.path": "\(path)", "store.reason": "\(reason)", "store.keptAs": "\(aside)"])
        problems.append("\(path): \(reason) (kept as \(aside))")
        return nil
    }
}
