import FoundationEssentials
import Glibc
import Logging
import Synchronization

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
/// whole store per change became one small write. After ``compactionEntries`` changes (and at
/// every start) a snapshot holding them is due, to be written and those entries dropped from
/// the journal; the engine writes it once changes pause, or once the journal holds
/// ``overdueFactor`` times as many.
/// The engine writes that snapshot on a thread of its own while changes go on: each snapshot
/// carries a ``SnapshotTicket`` saying which journal entries it holds, snapshots are written one
/// at a time and never an older one over a newer, and only the entries a durable snapshot holds
/// leave the journal.
///
/// A file that cannot be read, is damaged or has an unknown version is never overwritten: it is
/// renamed aside (`alarms.store.bad-<reason>-<seconds>`, `alarms.journal.bad-...`) with a log
/// line, and the other copy is used. So neither a crash at any point nor one damaged snapshot
/// copy loses an acknowledged change, and a bad file never crash-loops the daemon. (The journal
/// has one copy: damage to it loses the changes since the last snapshot, about
/// ``overdueFactor`` × ``compactionEntries`` at most.)
public final class AlarmStore: Sendable {
    /// The file format version this build writes and reads.
    public static let formatVersion = 1
    static let magic = "alarmd-store"

    public let directory: String
    /// After this many journal entries a snapshot is due.
    public let compactionEntries: Int
    /// After this many times ``compactionEntries`` entries a snapshot is overdue: written even
    /// while changes go on.
    public static let overdueFactor = 4
    public let journalPath: String
    private let logger: Logger
    /// Locked for each append and read of the journal; a snapshot written on another thread
    /// locks it only to drop the entries it holds.
    private let journal: Mutex<JournalAccess>
    /// The sequence number of the newest snapshot written. Held while a snapshot is written, so
    /// snapshots are written one at a time (always before the journal's lock, never after).
    private let snapshotWriting = Mutex<UInt64>(0)
    /// For tests: runs on the writing thread before each snapshot is written.
    let snapshotWillBeWritten = Mutex<(@Sendable () -> Void)?>(nil)
    /// The error every write gets instead of reaching the disk, while set.
    private let simulatedWriteFailure = Mutex<Int32?>(nil)

    private struct JournalAccess {
        let file: StoreJournal
        /// A failed append could not be taken back: the next save must be a snapshot.
        var needsSnapshot = false
        /// Tickets handed out, numbering snapshots in the order their state was taken.
        var ticketsIssued: UInt64 = 0
    }

    public init(directory: String, logger: Logger, compactionEntries: Int = 64) {
        self.directory = directory
        self.logger = logger
        self.compactionEntries = max(compactionEntries, 1)
        journalPath = directory + "/alarms.journal"
        journal = Mutex(JournalAccess(file: StoreJournal(path: journalPath, directory: directory)))
    }

    public var primaryPath: String { directory + "/alarms.store" }
    public var backupPath: String { directory + "/alarms.store.backup" }

    /// What loading found.
    public struct Loaded: Sendable {
        /// The state to resume from; `nil` on a first start (or when every copy was bad).
        public var state: StoredState?
        /// Files that were bad and moved aside, for the log and the display.
        public var problems: [String]
        /// Changes found in the journal (applied to `state`): a snapshot is due.
        public var journalEntries = 0
        /// The journal removes alarms by id alone, as written while ids were unique on the device:
        /// replayed over a later state, where two clients may use the id, such a removal could
        /// take the wrong alarm, so the state is to be written as a snapshot (which empties the
        /// journal) before anything else.
        public var journalHasRemovalsWithoutOwner = false
    }

    /// Loads the newest good copy and the journal's changes. Never throws and never blocks: a
    /// file that cannot be read, is not a regular file (a directory, a FIFO, a symlink loop) or is
    /// damaged is moved aside and reported, and loading goes on with what can be read. A file that
    /// cannot even be moved aside is reported and left where it is: its directory is then not
    /// writable either, so no save can replace it, and the engine shows the failing saves as a
    /// storage fault. The clock must start whatever the state directory holds.
    public func load() -> Loaded {
        var problems: [String] = []
        do throws(StoreError) {
            try DurableFile.makeDirectory(directory)
        } catch {
            logger.critical("Store directory unusable; starting with what can be read", metadata: [
                "store.directory": "\(directory)", "store.error": "\(error)",
            ])
            problems.append("\(error)")
        }
        setAsideLeftovers(problems: &problems)
        var loaded = loadSnapshot(problems: &problems)
        let contents: StoreJournal.Contents
        do throws(StoreError) {
            contents = try journal.withLock { journal throws(StoreError) in try journal.file.read() }
        } catch {
            contents = StoreJournal.Contents(damage: "\(error)", unreadable: true)
        }
        if let damage = contents.damage {
            let aside = setAside(journalPath, tag: contents.unreadable ? "unreadable" : "corrupt", problems: &problems)
            if aside == nil {
                // Its entries after the damage could not be read: appending more behind them would
                // lose those too, so changes go into snapshots until it can be replaced.
                journal.withLock { $0.needsSnapshot = true }
            }
            logger.error(
                "Store journal is unusable; its changes before the damage are used",
                metadata: ["store.path": "\(journalPath)", "store.reason": "\(damage)", "store.keptAs": "\(aside ?? "(in place)")"])
            problems.append("\(journalPath): \(damage)\(Self.whereKept(aside))")
        }
        if !contents.entries.isEmpty {
            loaded.state = StoreJournalEntry.apply(
                contents.entries, to: loaded.state ?? StoredState(savedAt: Date(timeIntervalSince1970: 0)))
            loaded.journalEntries = contents.entries.count
            loaded.journalHasRemovalsWithoutOwner = contents.entries.contains { $0.removed.contains { $0.owner == nil } }
        }
        loaded.problems = problems
        return loaded
    }

    private func loadSnapshot(problems: inout [String]) -> Loaded {
        let primary = readCopy(primaryPath, problems: &problems)
        if let primary {
            // The backup only needs to be intact, not decoded: that would double the start-up time.
            if case .none = readCopy(backupPath, decodingContent: false, problems: &problems) {
                logger.debug("Store backup missing or bad; the next save rewrites it", metadata: ["store.path": "\(backupPath)"])
            }
            return Loaded(state: primary, problems: problems)
        }
        let backup = readCopy(backupPath, problems: &problems)
        if backup != nil {
            logger.warning("Store primary copy unusable; resuming from the backup", metadata: ["store.path": "\(backupPath)"])
        } else if !problems.isEmpty {
            logger.critical("Every store copy was bad; starting with no alarms", metadata: ["store.directory": "\(directory)"])
        }
        return Loaded(state: backup, problems: problems)
    }

    /// The temporary files a save writes: something that is not a regular file in their place
    /// (left by hand, or by a damaged file system) would make every save fail.
    private func setAsideLeftovers(problems: inout [String]) {
        for path in [primaryPath, backupPath, journalPath].map({ $0 + ".tmp" }) {
            var status = stat()
            guard lstat(path, &status) == 0, let kind = DurableFile.nonRegularKind(status.st_mode) else { continue }
            let aside = setAside(path, tag: "unusable", problems: &problems)
            logger.error("A store file's temporary name is taken; kept aside", metadata: [
                "store.path": "\(path)", "store.reason": "\(kind)", "store.keptAs": "\(aside ?? "(in place)")",
            ])
            problems.append("\(path): \(kind)\(Self.whereKept(aside))")
        }
    }

    /// Where a bad file went, for the problem's description.
    private static func whereKept(_ aside: String?) -> String {
        aside.map { " (kept as \($0))" } ?? " (left in place: it cannot be moved aside)"
    }

    /// Moves a bad file aside to `<path>.bad-<tag>-<seconds>`; `nil` (with a log line) if even
    /// that fails.
    private func setAside(_ path: String, tag: String, problems: inout [String]) -> String? {
        do throws(StoreError) {
            return try DurableFile.moveAside(
                path, to: "\(path).bad-\(tag)-\(Int(Date().timeIntervalSince1970))", directory: directory)
        } catch {
            logger.critical("A bad store file cannot be moved aside; left in place", metadata: [
                "store.path": "\(path)", "store.error": "\(error)",
            ])
            return nil
        }
    }

    /// Makes one change durable by appending `entry` (a ``StoreJournalEntry``'s JSON) to the
    /// journal; when this returns, a power cut loses nothing of it. If the journal cannot be used
    /// (an earlier append could not be taken back), a snapshot from `snapshot` is written instead.
    ///
    /// When this throws, the change is not on disk (a failed append is cut off again).
    func commit(entry: [UInt8], snapshot: () throws -> [UInt8]) throws {
        try failIfSimulated(operation: "write", path: journalPath)
        let appended = try journal.withLock { journal throws(StoreError) -> Bool in
            guard !journal.needsSnapshot else { return false }
            do throws(StoreError) {
                try journal.file.append(entry)
            } catch {
                if error.journalUnusable { journal.needsSnapshot = true }
                throw error
            }
            return true
        }
        if !appended {
            try save(body: try snapshot())
        }
    }

    /// Makes every write of the store fail with `errno` (`ENOSPC` as on a full disk, `EROFS` as on
    /// an SD card the kernel remounted read-only) until called with `nil`; reading goes on. For
    /// the simulator and scenario scripts, whose store is on a healthy disk.
    public func simulateWriteFailure(_ errno: Int32?) {
        simulatedWriteFailure.withLock { $0 = errno }
    }

    private func failIfSimulated(operation: String, path: String) throws(StoreError) {
        if let errno = simulatedWriteFailure.withLock({ $0 }) {
            throw StoreError(operation: operation, path: path, errno: errno)
        }
    }

    /// Whether the journal holds changes the snapshot does not.
    public var hasJournalEntries: Bool { journal.withLock { $0.file.entryCount > 0 } }

    /// Whether enough changes are in the journal that a snapshot is due.
    public var isCompactionDue: Bool { journal.withLock { $0.file.entryCount >= compactionEntries } }

    /// Whether the journal has grown so long that a snapshot should not wait for changes to pause.
    public var isCompactionOverdue: Bool {
        journal.withLock { $0.file.entryCount >= Self.overdueFactor * compactionEntries }
    }

    /// Which journal entries a snapshot holds, and its place among snapshots.
    public struct SnapshotTicket: Sendable, Hashable {
        /// Snapshots are numbered in the order their state was taken; an older one is never
        /// written over a newer one.
        let sequence: UInt64
        /// The snapshot holds the journal's entries numbered below this.
        let journalEntriesBelow: Int
    }

    /// A ticket for a snapshot of the state as it is now: take it when the state is encoded,
    /// with no change made since the last ``commit(entry:snapshot:)`` that is not in it.
    func snapshotTicket() -> SnapshotTicket {
        journal.withLock { journal in
            journal.ticketsIssued += 1
            return SnapshotTicket(sequence: journal.ticketsIssued, journalEntriesBelow: journal.file.nextEntryNumber)
        }
    }

    /// Writes `state` durably as a snapshot and empties the journal: when this returns, a power
    /// cut loses nothing of it.
    ///
    /// The change is durable once the primary copy is; a backup that cannot be written is logged
    /// and rewritten by the next save. When this throws, the change is not on disk: if the primary
    /// was replaced but its directory could not be synced, the previous content is put back, so a
    /// refused change never reappears after a restart.
    public func save(_ state: StoredState) throws {
        try write(framed: Self.encode(state), ticket: snapshotTicket())
    }

    /// Writes an already encoded state (see `EncodedAlarmCache`) that holds every change; as
    /// ``save(_:)``.
    func save(body: [UInt8]) throws(StoreError) {
        try write(framed: Self.frame(body), ticket: snapshotTicket())
    }

    /// Writes a snapshot whose state was encoded when `ticket` was taken, on any thread, and
    /// drops the journal entries it holds; the ones taken since stay. Does nothing if a newer
    /// snapshot was written meanwhile. As ``save(_:)`` otherwise.
    func writeSnapshot(body: [UInt8], ticket: SnapshotTicket) throws(StoreError) {
        try write(framed: Self.frame(body), ticket: ticket)
    }

    private func write(framed bytes: [UInt8], ticket: SnapshotTicket) throws(StoreError) {
        try failIfSimulated(operation: "create", path: primaryPath + ".tmp")
        try snapshotWriting.withLock { newestWritten throws(StoreError) in
            guard ticket.sequence > newestWritten else { return }
            snapshotWillBeWritten.withLock { $0 }?()
            let previous = try? DurableFile.read(primaryPath)
            do throws(StoreError) {
                try DurableFile.replace(primaryPath, with: bytes, directory: directory)
            } catch {
                if error.replacedFile { restorePrimary(previous) }
                throw error
            }
            newestWritten = ticket.sequence
            do throws(StoreError) {
                try DurableFile.replace(backupPath, with: bytes, directory: directory)
            } catch {
                logger.error(
                    "Store backup could not be written; the primary copy holds every change",
                    metadata: ["store.path": "\(backupPath)", "store.error": "\(error)"])
            }
            dropJournalEntries(heldBy: ticket)
        }
    }

    /// After a durable snapshot: the journal keeps only the entries taken since its ticket.
    private func dropJournalEntries(heldBy ticket: SnapshotTicket) {
        journal.withLock { journal in
            do throws(StoreError) {
                if try journal.file.dropEntries(numberedBelow: ticket.journalEntriesBelow) {
                    journal.needsSnapshot = false
                }
            } catch {
                guard ticket.journalEntriesBelow >= journal.file.nextEntryNumber else {
                    // Entries taken since are in it: it stays, and its entries the snapshot holds
                    // are replayed harmlessly at the next start.
                    logger.warning(
                        "Store journal could not be trimmed after a snapshot; it is kept whole",
                        metadata: ["store.path": "\(journalPath)", "store.error": "\(error)"])
                    return
                }
                // The snapshot holds every change of it, but it may hold a refused change (an
                // append that could not be taken back): a journal that cannot be emptied is moved aside.
                do throws(StoreError) {
                    let aside = try DurableFile.moveAside(
                        journalPath, to: "\(journalPath).bad-unemptied-\(Int(Date().timeIntervalSince1970))",
                        directory: directory)
                    journal.needsSnapshot = false
                    logger.error(
                        "Store journal could not be emptied after a snapshot; kept aside",
                        metadata: ["store.path": "\(journalPath)", "store.error": "\(error)", "store.keptAs": "\(aside)"])
                } catch let moveError {
                    logger.error(
                        "Store journal could not be emptied or kept aside after a snapshot; the next change writes a snapshot",
                        metadata: ["store.path": "\(journalPath)", "store.error": "\(error)", "store.moveError": "\(moveError)"])
                    journal.needsSnapshot = true
                }
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
    private func readCopy(_ path: String, decodingContent: Bool = true, problems: inout [String]) -> StoredState? {
        var tag = "unreadable"
        var reason: String
        do throws(StoreError) {
            guard let bytes = try DurableFile.read(path) else { return nil }
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
        let aside = setAside(path, tag: tag, problems: &problems)
        logger.error(
            "Store file is bad; kept aside and not used",
            metadata: ["store.path": "\(path)", "store.reason": "\(reason)", "store.keptAs": "\(aside ?? "(in place)")"])
        problems.append("\(path): \(reason)\(Self.whereKept(aside))")
        return nil
    }
}
