import AlarmProtocol
import AlarmSoundFile
import FoundationEssentials
import Glibc
import LinuxSupport
import Logging

/// The sounds an alarm may ring with: the package's, read-only (`[sound] sounds_directory`), and
/// the household's own in `sounds/` of the state directory, which the page and `alarmctl sounds
/// add` send piece by piece (``UploadSoundParameters``) and may delete.
///
/// Each upload grows a hidden `.upload-ID` of its own until its last piece; then it is decoded as
/// an alarm would decode it and linked into place under its name (0640) only if it can ring and
/// the name is still free, so two uploads never mix and a name is never replaced. A name the
/// package uses is refused too, so a name means one file. The household directory shares the
/// file system of the alarms' store: an upload that would leave less than ``reservedFreeBytes``
/// free is refused, so a full card never costs an alarm.
public actor SoundLibrary {
    public let packagedDirectory: String
    public let householdDirectory: String
    /// Free space an upload leaves on the household directory's file system, at least.
    public let reservedFreeBytes: Int
    /// Told the household directory's names after each change and each listing, with a number
    /// that grows with each list (lists may arrive out of order).
    private let namesChanged: @Sendable (Set<String>, Int) async -> Void
    private let logger: Logger
    /// How long an upload may pause before the next new one clears it away.
    static let abandonedAfter: TimeInterval = 3600

    private struct Upload {
        var name: String
        var received = 0
        var lastPiece: Date
        /// Its last piece is being checked: no piece is taken meanwhile.
        var checking = false
    }

    /// The uploads under way, by their id.
    private var uploads: [String: Upload] = [:]
    /// The last uploads kept, by id, with their size: a last piece sent again is answered alike.
    private var finished: [(id: String, name: String, bytes: Int)] = []
    private var generation = 0
    /// The names last told, so a listing (every page state read) tells only a change.
    private var announced: Set<String>?

    public init(
        packagedDirectory: String, householdDirectory: String, reservedFreeBytes: Int = 256 * 1024 * 1024, logger: Logger,
        namesChanged: @escaping @Sendable (Set<String>, Int) async -> Void
    ) {
        self.packagedDirectory = packagedDirectory
        self.householdDirectory = householdDirectory
        self.reservedFreeBytes = reservedFreeBytes
        self.logger = logger
        self.namesChanged = namesChanged
    }

    /// Where `name` rings from: the household's file if there is one, else the package's.
    public func path(of name: String) -> String {
        Self.names(in: householdDirectory).contains(name) ? householdDirectory + "/" + name : packagedDirectory + "/" + name
    }

    /// Every sound, household ones marked as such, with how many alarms use each
    /// (`usage[name]`); a name in both directories is the household's.
    public func files(usage: [String: Int]) async -> [SoundFileInfo] {
        let household = await announce()
        var files = household.map { name in
            SoundFileInfo(name: name, origin: .household, bytes: Self.size(of: householdDirectory + "/" + name), usedBy: usage[name] ?? 0)
        }
        for name in Self.names(in: packagedDirectory) where !household.contains(name) {
            files.append(SoundFileInfo(name: name, origin: .packaged, bytes: Self.size(of: packagedDirectory + "/" + name), usedBy: usage[name] ?? 0))
        }
        return files.sorted { $0.name < $1.name }
    }

    /// Takes one piece of an upload (``UploadSoundParameters``) and, with the last, keeps the
    /// sound if alarmd can ring with it.
    /// - Throws: ``ControlError`` `malformed` (the name, the base64, the offset), `refused` (a name
    ///   in use, too large, too little room, a piece while the last is checked),
    ///   `invalidConfiguration` (a file that cannot ring, with the reason; the upload is
    ///   discarded), `storageFailure` (the card).
    public func receive(_ piece: UploadSoundParameters) async throws -> UploadSoundReport {
        if let problem = SoundFileName.problem(with: piece.name) { throw ControlError(.malformed, problem) }
        guard (0...UploadSoundParameters.maximumFileBytes).contains(piece.offset), let bytes = Data(base64Encoded: piece.data),
              bytes.count <= UploadSoundParameters.maximumPiece
        else {
            throw ControlError(.malformed, "\"data\" must be base64 of at most \(UploadSoundParameters.maximumPiece) bytes, at an offset from 0 to \(UploadSoundParameters.maximumFileBytes)")
        }
        let id: String
        if piece.offset == 0 {
            id = try start(piece.name, replacing: piece.upload)
        } else {
            guard let given = piece.upload, let upload = uploads[given], upload.name == piece.name else {
                if let done = finished.first(where: { $0.id == piece.upload && $0.name == piece.name }) {
                    return UploadSoundReport(name: done.name, upload: done.id, received: done.bytes, kept: true)
                }
                // Unknown here (alarmd restarted, or it was cleared as abandoned): from the start.
                return UploadSoundReport(name: piece.name, upload: nil, received: 0, kept: false)
            }
            guard !upload.checking else { throw ControlError(.refused, "\"\(piece.name)\" is being checked; wait for its answer") }
            guard upload.received == piece.offset else {
                return UploadSoundReport(name: piece.name, upload: given, received: upload.received, kept: false)
            }
            id = given
        }
        guard piece.offset + bytes.count <= UploadSoundParameters.maximumFileBytes else {
            throw ControlError(.refused, "a sound file is at most \(UploadSoundParameters.maximumFileBytes / 1_048_576) MiB")
        }
        try requireRoom(for: bytes.count)
        do {
            try append(bytes, to: partialPath(id), truncating: piece.offset == 0)
        } catch {
            discard(id)
            throw error
        }
        let received = piece.offset + bytes.count
        uploads[id]?.received = received
        uploads[id]?.lastPiece = Date()
        guard piece.final else { return UploadSoundReport(name: piece.name, upload: id, received: received, kept: false) }
        try await keep(id)
        return UploadSoundReport(name: piece.name, upload: id, received: received, kept: true)
    }

    /// Deletes a household sound, unless `users` (asked once the file is out of reach of new
    /// alarms) names alarms that ring with it: then it is put back and the deletion refused.
    public func delete(_ name: String, users: @Sendable () async -> [String]) async throws {
        if let problem = SoundFileName.problem(with: name) { throw ControlError(.malformed, problem) }
        guard Self.names(in: householdDirectory).contains(name) else {
            if Self.names(in: packagedDirectory).contains(name) {
                throw ControlError(.refused, "\"\(name)\" comes with alarmd and cannot be deleted")
            }
            throw ControlError(.notFound, "no sound named \"\(name)\"")
        }
        // Hidden first: an alarm scheduled from now on with this name is refused at its check.
        let path = householdDirectory + "/" + name
        let aside = householdDirectory + "/.deleting-" + UUID().uuidString
        guard rename(path, aside) == 0 else { throw storageFailure("rename", path) }
        let using = await users()
        guard using.isEmpty else {
            if link(aside, path) != 0 {
                logger.warning("A sound in use could not be put back", metadata: ["sound": "\(name)", "errno": "\(errno)"])
            }
            unlink(aside)
            throw ControlError(.refused, "\"\(name)\" is the sound of \(using.map { "\"\($0)\"" }.joined(separator: ", ")): choose another sound for it first")
        }
        unlink(aside)
        syncDirectory()
        logger.notice("Sound deleted", metadata: ["sound": "\(name)"])
        await announce()
    }

    /// Removes uploads that were never finished, and deletions a crash interrupted: at start all
    /// of them; when a new upload starts, those idle an hour.
    public func clearAbandonedUploads(all: Bool = false) {
        let now = Date()
        for (id, upload) in uploads where all || (!upload.checking && now.timeIntervalSince(upload.lastPiece) > Self.abandonedAfter) {
            discard(id)
        }
        guard all else { return }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: householdDirectory)) ?? []
        for entry in entries where entry.hasPrefix(".upload-") || entry.hasPrefix(".deleting-") {
            unlink(householdDirectory + "/" + entry)
        }
    }

    /// Tells the appliance what the household directory holds now, if that changed; returns it.
    @discardableResult
    public func announce() async -> Set<String> {
        let names = Self.names(in: householdDirectory)
        guard names != announced else { return names }
        announced = names
        generation += 1
        await namesChanged(names, generation)
        return names
    }

    // MARK: - Files

    private func partialPath(_ id: String) -> String { householdDirectory + "/.upload-" + id }

    /// Begins an upload of `name` (the one it is `replacing`, started again, is dropped); its id.
    private func start(_ name: String, replacing earlier: String?) throws -> String {
        try refuseTakenName(name)
        guard mkdir(householdDirectory, 0o750) == 0 || errno == EEXIST else {
            throw ControlError(.storageFailure, "\(householdDirectory) could not be made: \(String(cString: strerror(errno)))")
        }
        if let earlier, uploads[earlier]?.name == name, uploads[earlier]?.checking == false { discard(earlier) }
        clearAbandonedUploads()
        let id = UUID().uuidString
        uploads[id] = Upload(name: name, lastPiece: Date())
        return id
    }

    private func discard(_ id: String) {
        uploads[id] = nil
        unlink(partialPath(id))
    }

    private func refuseTakenName(_ name: String) throws {
        if Self.names(in: packagedDirectory).contains(name) {
            throw ControlError(.refused, "\"\(name)\" is the name of a sound that comes with alarmd: choose another name")
        }
        if Self.names(in: householdDirectory).contains(name) {
            throw ControlError(.refused, "a sound named \"\(name)\" is already kept: delete it first, or choose another name")
        }
    }

    private func requireRoom(for count: Int) throws {
        var info = statvfs()
        guard statvfs(householdDirectory, &info) == 0 else { throw storageFailure("statvfs", householdDirectory) }
        let free = Int(info.f_bavail) * Int(info.f_frsize)
        guard free - count >= reservedFreeBytes else {
            throw ControlError(.refused, "too little room on the card for this sound: \(free / 1_048_576) MiB free, \(reservedFreeBytes / 1_048_576) MiB are kept for the alarms")
        }
    }

    private func append(_ bytes: Data, to path: String, truncating: Bool) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (truncating ? O_TRUNC : O_APPEND), 0o640)
        guard descriptor >= 0 else { throw storageFailure("open", path) }
        defer { close(descriptor) }
        if truncating { fchmod(descriptor, 0o640) }  // whatever the daemon's umask: alarmd's, its group may read
        let written = bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + done, buffer.count - done)
                if count < 0 {
                    if errno == EINTR { continue }
                    return -1
                }
                done += count
            }
            return done
        }
        guard written == bytes.count else { throw storageFailure("write", path) }
    }

    /// Checks the finished upload `id` as an alarm would play it, then links it into place under
    /// its name, durably, unless the name was taken meanwhile.
    private func keep(_ id: String) async throws {
        guard let name = uploads[id]?.name else { return }
        uploads[id]?.checking = true
        let partial = partialPath(id)
        let checked = await DetachedThread.run { () -> String? in
            let descriptor = open(partial, O_RDONLY | O_CLOEXEC)
            if descriptor >= 0 {
                fsync(descriptor)
                close(descriptor)
            }
            do throws(SoundFileError) {
                _ = try SoundFileReader.check(partial)
                return nil
            } catch {
                return error.reason
            }
        }
        if let reason = checked {
            discard(id)
            throw ControlError(.invalidConfiguration, "\(name) is not a sound alarmd can ring with: \(reason)")
        }
        let path = householdDirectory + "/" + name
        do {
            try refuseTakenName(name)
            // link, not rename: it fails rather than replace a file that took the name meanwhile.
            guard link(partial, path) == 0 else {
                throw errno == EEXIST ? ControlError(.refused, "a sound named \"\(name)\" was kept meanwhile") : storageFailure("link", path)
            }
        } catch {
            discard(id)
            throw error
        }
        discard(id)
        syncDirectory()
        finished = Array((finished + [(id, name, Self.size(of: path))]).suffix(16))
        logger.notice("Sound added", metadata: ["sound": "\(name)", "sound.bytes": "\(Self.size(of: path))"])
        await announce()
    }

    private func syncDirectory() {
        let descriptor = open(householdDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private func storageFailure(_ operation: String, _ path: String) -> ControlError {
        ControlError(.storageFailure, "\(operation) \(path): \(String(cString: strerror(errno)))")
    }

    /// The sound files of `directory` alarms may name: not hidden, with a sound's extension.
    static func names(in directory: String) -> Set<String> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(entries.filter { name in
            !name.hasPrefix(".") && SoundFileReader.fileExtensions.contains { name.lowercased().hasSuffix("." + $0) }
        })
    }

    static func size(of path: String) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : 0
    }
}
