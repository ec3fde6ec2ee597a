import FoundationEssentials
import Glibc
import LinuxSupport
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
/// ``StoreJournal``) with one `fdatasync`: one small write, where a snapshot is the whole store
/// and four fsyncs. Once the journal holds ``compactionEntries`` changes, the change that filled
/// it also writes a snapshot of the whole state, which empties the journal.
///
/// A file that is damaged, has an unknown version or is not a regular file is never
/// overwritten: it is renamed aside (`alarms.store.bad-<reason>-<seconds>`,
/// `alarms.journal.bad-...`) with a log line, and the other copy is used. So neither a crash at
/// any point nor one damaged snapshot copy loses an acknowledged change, and a bad file never
/// crash-loops the daemon. (The journal has one copy: damage to it loses the changes since the
/// last snapshot, ``compactionEntries`` at most.)
///
/// A file that exists but could not be read (`EIO` from a failing SD card, a USB disk not ready,
/// `EACCES`) may hold every alarm: it is left exactly as it is, and the store writes nothing at
/// all (no snapshot, no backup, no journal entry) until a later ``load()`` has read every file.
/// Until then ``commit(_:state:)`` and ``save(_:)`` throw ``StoreUnreadable``.
public final class AlarmStore: Sendable {
    /// The file format version this build writes and reads.
    public static let formatVersion = 1
    static let magic = "alarmd-store"

    public let directory: String
    /// After this many journal entries the next change also writes a snapshot.
    public let compactionEntries: Int
    public let journalPath: String
    private let files: DurableFile
    private let logger: Logger
    /// Held for each load, commit and snapshot: one writer at a time.
    private let journal: Mutex<JournalAccess>
    /// The error every write gets instead of reaching the disk, while set.
    private let simulatedWriteFailure = Mutex<Int32?>(nil)

    private struct JournalAccess {
        let file: StoreJournal
        /// A failed append could not be taken back: the next save must be a snapshot.
        var needsSnapshot = false
        /// The files the last load could not read: nothing is written while there are any.
        var unreadable: [StoreError] = []
        /// Why the last load found the directory unusable (logged once).
        var directoryFailure: StoreError?
    }

    public convenience init(directory: String, logger: Logger, compactionEntries: Int = 64) {
        self.init(directory: directory, logger: logger, compactionEntries: compactionEntries, files: .system)
    }

    /// A store whose files are read and written through `files`.
    package init(directory: String, logger: Logger, compactionEntries: Int = 64, files: DurableFile) {
        self.directory = directory
        self.logger = logger
        self.files = files
        self.compactionEntries = max(compactionEntries, 1)
        journalPath = directory + "/alarms.journal"
        journal = Mutex(JournalAccess(file: StoreJournal(path: journalPath, directory: directory, files: files)))
    }

    public var primaryPath: String { directory + "/alarms.store" }
    public var backupPath: String { directory + "/alarms.store.backup" }

    /// Loads the newest good copy and the journal's changes. Never throws and never blocks: a
    /// file that is not a regular file (a directory, a FIFO, a symlink loop) or is damaged is
    /// moved aside and reported, and loading goes on with what can be read. A file that cannot
    /// even be moved aside is reported and left where it is: its directory is then not writable
    /// either, so no save can replace it, and the engine shows the failing saves as a storage
    /// fault. The clock must start whatever the state directory holds.
    ///
    /// A file that exists but could not be read is left untouched and listed in
    /// ``Loaded/unreadable``: the store then refuses every write until a load reads every file.
    /// The primary copy, the backup and the journal are read together, by each load.
    public func load() -> Loaded {
        var problems: [String] = []
        do throws(StoreError) {
            try files.makeDirectory(directory)
            journal.withLock { $0.directoryFailure = nil }
        } catch {
            // Once per failure, not at every load of a store that is read again until it can be.
            let isNew = journal.withLock { journal in
                defer { journal.directoryFailure = error }
                return journal.directoryFailure != error
            }
            if isNew {
                logger.critical("Store directory unusable; starting with what can be read", metadata: [
                    "store.directory": "\(directory)", "store.error": "\(error)",
                ])
            }
            problems.append("\(error)")
        }
        setAsideLeftovers(problems: &problems)
        var unreadable: [StoreError] = []
        var loaded = loadSnapshot(problems: &problems, unreadable: &unreadable)
        let contents: StoreJournal.Contents
        do throws(StoreError) {
            contents = try journal.withLock { journal throws(StoreError) in try journal.file.read() }
        } catch {
            logger.debug("Store journal could not be read; left as it is", metadata: [
                "store.path": "\(journalPath)", "store.error": "\(error)",
            ])
            unreadable.append(error)
            contents = StoreJournal.Contents()
        }
        if contents.tornTailRemains { journal.withLock { $0.needsSnapshot = true } }
        if let damage = contents.damage {
            let aside = setAside(journalPath, tag: contents.notARegularFile ? "notafile" : "corrupt", problems: &problems)
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
        journal.withLock { $0.unreadable = unreadable }
        loaded.problems = problems
        loaded.unreadable = unreadable
        return loaded
    }

    /// The files the last ``load()`` could not read; the store writes nothing while there are any.
    public var unreadableFiles: [StoreError] { journal.withLock { $0.unreadable } }

    private func loadSnapshot(problems: inout [String], unreadable: inout [StoreError]) -> Loaded {
        switch readCopy(primaryPath, problems: &problems) {
        case .state(let primary):
            // The backup only needs to be intact, not decoded: that would double the start-up time.
            switch readCopy(backupPath, decodingContent: false, problems: &problems) {
            case .state: break
            case .unreadable(let error): unreadable.append(error)
            case .absent:
                logger.debug("Store backup missing or bad; the next save rewrites it", metadata: ["store.path": "\(backupPath)"])
            }
            return Loaded(state: primary, problems: problems)
        case .unreadable(let error):
            unreadable.append(error)
        case .absent:
            break
        }
        switch readCopy(backupPath, problems: &problems) {
        case .state(let backup):
            // A primary that could not be read is the runtime's to report, once.
            if unreadable.isEmpty {
                logger.warning("Store primary copy unusable; resuming from the backup", metadata: ["store.path": "\(backupPath)"])
            }
            return Loaded(state: backup, problems: problems)
        case .unreadable(let error):
            unreadable.append(error)
        case .absent:
            if !problems.isEmpty && unreadable.isEmpty {
                logger.critical("Every store copy was bad; starting with no alarms", metadata: ["store.directory": "\(directory)"])
            }
        }
        return Loaded(state: nil, problems: problems)
    }

    /// The temporary files a save writes: something that is not a regular file in their place
    /// (left by hand, or by a damaged file system) would make every save fail.
    private func setAsideLeftovers(problems: inout [String]) {
        for path in [primaryPath, backupPath, journalPath].map({ $0 + ".tmp" }) {
            var status = stat()
            guard files.calls.lstat(path, &status) == 0, let kind = SystemFile.nonRegularKind(status.st_mode) else { continue }
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
            return try files.moveAside(
                path, to: "\(path).bad-\(tag)-\(Int(Date().timeIntervalSince1970))", directory: directory)
        } catch {
            logger.critical("A bad store file cannot be moved aside; left in place", metadata: [
                "store.path": "\(path)", "store.error": "\(error)",
            ])
            return nil
        }
    }

    /// Makes one change durable by appending `entry` to the journal; when this returns, a power
    /// cut loses nothing of it. When the journal is full, or cannot be used (an earlier append
    /// could not be taken back), a snapshot of `state` is written too, or instead.
    ///
    /// When this throws, the change is not on disk (a failed append is cut off again). A full
    /// journal's snapshot that fails is logged, not thrown: the change is in the journal.
    func commit(_ entry: StoreJournalEntry, state: () -> StoredState) throws {
        try failIfSimulated(operation: "write", path: journalPath)
        let body = Array(try Self.jsonEncoder().encode(entry))
        try journal.withLock { journal throws in
            try Self.refuseWhileUnread(journal)
            guard !journal.needsSnapshot else {
                try writeSnapshot(state(), journal: &journal)
                return
            }
            do throws(StoreError) {
                try journal.file.append(body)
            } catch {
                if error.journalUnusable { journal.needsSnapshot = true }
                throw error
            }
            guard journal.file.entryCount >= compactionEntries else { return }
            do {
                try writeSnapshot(state(), journal: &journal)
            } catch {
                logger.warning("Alarm store snapshot could not be written; the journal keeps every change", metadata: [
                    "store.error": "\(error)",
                ])
            }
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

    /// Writes `state` durably as a snapshot and empties the journal: when this returns, a power
    /// cut loses nothing of it.
    ///
    /// The change is durable once the primary copy is; a backup that cannot be written is logged
    /// and rewritten by the next save. When this throws, the change is not on disk: if the primary
    /// was replaced but its directory could not be synced, the previous content is put back, so a
    /// refused change never reappears after a restart. A primary that cannot be read could not be
    /// put back: the snapshot then does not start.
    public func save(_ state: StoredState) throws {
        try journal.withLock { journal throws in
            try Self.refuseWhileUnread(journal)
            try writeSnapshot(state, journal: &journal)
        }
    }

    /// Nothing may replace or follow content nobody has read.
    private static func refuseWhileUnread(_ journal: JournalAccess) throws(StoreUnreadable) {
        guard journal.unreadable.isEmpty else { throw StoreUnreadable(failures: journal.unreadable) }
    }

    private func writeSnapshot(_ state: StoredState, journal: inout JournalAccess) throws {
        let bytes = try Self.encode(state)
        try failIfSimulated(operation: "create", path: primaryPath + ".tmp")
        // Put back if the new copy's rename cannot be made durable. A copy that cannot be read now
        // could not be put back: the snapshot does not start, rather than delete it.
        let previous = try primaryToPutBack()
        do throws(StoreError) {
            try files.replace(primaryPath, with: bytes, directory: directory)
        } catch {
            if error.replacedFile { restorePrimary(previous) }
            throw error
        }
        do throws(StoreError) {
            try files.replace(backupPath, with: bytes, directory: directory)
        } catch {
            logger.error(
                "Store backup could not be written; the primary copy holds every change",
                metadata: ["store.path": "\(backupPath)", "store.error": "\(error)"])
        }
        emptyJournal(&journal)
    }

    /// After a durable snapshot, which holds every entry of the journal.
    private func emptyJournal(_ journal: inout JournalAccess) {
        do throws(StoreError) {
            try journal.file.reset()
            journal.needsSnapshot = false
        } catch {
            // It may hold a refused change (an append that could not be taken back): a journal
            // that cannot be emptied is moved aside.
            do throws(StoreError) {
                let aside = try files.moveAside(
                    journalPath, to: "\(journalPath).bad-unemptied-\(Int(Date().timeIntervalSince1970))", directory: directory)
                journal.file.forgetEntries()
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

    /// The primary copy as it is; `nil` if there is none, or if what stands there is not a file
    /// (it holds nothing to put back).
    private func primaryToPutBack() throws(StoreError) -> [UInt8]? {
        do throws(StoreError) {
            return try files.read(primaryPath)
        } catch where error.notARegularFile {
            return nil
        }
    }

    /// Best effort: the save is already failing, and its error is what the caller hears.
    private func restorePrimary(_ previous: [UInt8]?) {
        if let previous {
            try? files.replace(primaryPath, with: previous, directory: directory)
        } else {
            _ = files.calls.unlink(primaryPath)
            try? files.syncDirectory(directory)
        }
    }

    /// One snapshot copy as a load found it.
    private enum Copy {
        /// Missing, or bad and set aside.
        case absent
        /// Good; the empty state when its content was only checked.
        case state(StoredState)
        /// It exists but could not be read: left as it is.
        case unreadable(StoreError)
    }

    /// Reads one copy; a bad one is moved aside and reported. Without `decodingContent`, an intact
    /// copy is reported as the empty state.
    private func readCopy(_ path: String, decodingContent: Bool = true, problems: inout [String]) -> Copy {
        var tag = "notafile"
        var reason: String
        do throws(StoreError) {
            guard let bytes = try files.read(path) else { return .absent }
            do {
                guard decodingContent else {
                    _ = try Self.verify(bytes)
                    return .state(StoredState(savedAt: Date(timeIntervalSince1970: 0)))
                }
                return .state(try Self.decode(bytes))
            } catch {
                reason = error.description
                tag = error.fileTag
            }
        } catch where error.notARegularFile {
            reason = error.description
        } catch {
            logger.debug("Store file could not be read; left as it is", metadata: [
                "store.path": "\(path)", "store.error": "\(error)",
            ])
            return .unreadable(error)
        }
        let aside = setAside(path, tag: tag, problems: &problems)
        logger.error(
            "Store file is bad; kept aside and not used",
            metadata: ["store.path": "\(path)", "store.reason": "\(reason)", "store.keptAs": "\(aside ?? "(in place)")"])
        problems.append("\(path): \(reason)\(Self.whereKept(aside))")
        return .absent
    }
}
