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
/// An upload grows a hidden `.upload-NAME` beside the sounds until its last piece; then it is
/// decoded as an alarm would decode it and kept under its name (0640) only if it can ring. A
/// name the package already uses is refused, so a name means one file. The household directory
/// shares the file system of the alarms' store: an upload that would leave less than
/// ``reservedFreeBytes`` free is refused, so a full card never costs an alarm.
public actor SoundLibrary {
    public let packagedDirectory: String
    public let householdDirectory: String
    /// Free space an upload leaves on the household directory's file system, at least.
    public let reservedFreeBytes: Int
    /// Told the household directory's names after each change and each listing.
    private let namesChanged: @Sendable (Set<String>) async -> Void
    private let logger: Logger
    /// How long an upload may pause before a new one clears it away.
    static let abandonedAfter: TimeInterval = 3600

    public init(
        packagedDirectory: String, householdDirectory: String, reservedFreeBytes: Int = 256 * 1024 * 1024, logger: Logger,
        namesChanged: @escaping @Sendable (Set<String>) async -> Void
    ) {
        self.logger = logger
        self.packagedDirectory = packagedDirectory
        self.householdDirectory = householdDirectory
        self.reservedFreeBytes = reservedFreeBytes
        self.namesChanged = namesChanged
    }

    /// Where `name` rings from: the household's file if there is one, else the package's.
    public func path(of name: String) -> String {
        Self.names(in: householdDirectory).contains(name) ? householdDirectory + "/" + name : packagedDirectory + "/" + name
    }

    /// Every sound, household ones marked as such, with how many alarms use each
    /// (`usage[name]`); a name in both directories is the household's.
    public func files(usage: [String: Int]) async -> [SoundFileInfo] {
        let household = Self.names(in: householdDirectory)
        await namesChanged(household)
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
    /// - Throws: ``ControlError`` `malformed` (the name, the base64), `refused` (a name in use, too
    ///   large, too little room), `invalidConfiguration` (a file that cannot ring, with the
    ///   reason; the upload is discarded), `storageFailure` (the card).
    public func receive(_ piece: UploadSoundParameters) async throws -> UploadSoundReport {
        if let problem = SoundFileName.problem(with: piece.name) { throw ControlError(.malformed, problem) }
        guard piece.offset >= 0, let bytes = Data(base64Encoded: piece.data), bytes.count <= UploadSoundParameters.maximumPiece else {
            throw ControlError(.malformed, "\"data\" must be base64 of at most \(UploadSoundParameters.maximumPiece) bytes, at an offset of 0 or more")
        }
        if piece.offset == 0 { try refuseTakenName(piece.name) }
        let partial = householdDirectory + "/.upload-" + piece.name
        if piece.offset == 0 {
            try makeHouseholdDirectory()
            clearAbandonedUploads()
        }
        let received = piece.offset == 0 ? 0 : Self.size(of: partial, missing: -1)
        guard received == piece.offset else {
            // Not where the file ends: the sender goes on from what is here (0 for a new one).
            return UploadSoundReport(name: piece.name, received: max(0, received), kept: false)
        }
        guard piece.offset + bytes.count <= UploadSoundParameters.maximumFileBytes else {
            throw ControlError(.refused, "a sound file is at most \(UploadSoundParameters.maximumFileBytes / 1_048_576) MiB")
        }
        try requireRoom(for: bytes.count)
        try append(bytes, to: partial, truncating: piece.offset == 0)
        guard piece.final else { return UploadSoundReport(name: piece.name, received: piece.offset + bytes.count, kept: false) }
        try await keep(partial, as: piece.name)
        return UploadSoundReport(name: piece.name, received: piece.offset + bytes.count, kept: true)
    }

    /// Deletes a household sound. `usedBy` names the alarms that ring with it: then it is refused.
    public func delete(_ name: String, usedBy: [String]) async throws {
        if let problem = SoundFileName.problem(with: name) { throw ControlError(.malformed, problem) }
        guard Self.names(in: householdDirectory).contains(name) else {
            if Self.names(in: packagedDirectory).contains(name) {
                throw ControlError(.refused, "\"\(name)\" comes with alarmd and cannot be deleted")
            }
            throw ControlError(.notFound, "no sound named \"\(name)\"")
        }
        guard usedBy.isEmpty else {
            throw ControlError(.refused, "\"\(name)\" is the sound of \(usedBy.map { "\"\($0)\"" }.joined(separator: ", ")): choose another sound for it first")
        }
        guard unlink(householdDirectory + "/" + name) == 0 else {
            throw ControlError(.storageFailure, "\(name) could not be deleted: \(String(cString: strerror(errno)))")
        }
        syncDirectory()
        logger.notice("Sound deleted", metadata: ["sound": "\(name)"])
        await namesChanged(Self.names(in: householdDirectory))
    }

    /// Removes uploads that were never finished: at start all of them, later those idle an hour.
    public func clearAbandonedUploads(all: Bool = false) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: householdDirectory)) ?? []
        let now = Date().timeIntervalSince1970
        for entry in entries where entry.hasPrefix(".upload-") {
            var status = stat()
            let path = householdDirectory + "/" + entry
            guard lstat(path, &status) == 0 else { continue }
            if all || now - TimeInterval(status.st_mtim.tv_sec) > Self.abandonedAfter { unlink(path) }
        }
    }

    /// Tells the appliance what the household directory holds (at start).
    public func announce() async {
        await namesChanged(Self.names(in: householdDirectory))
    }

    // MARK: - Files

    private func refuseTakenName(_ name: String) throws {
        if Self.names(in: packagedDirectory).contains(name) {
            throw ControlError(.refused, "\"\(name)\" is the name of a sound that comes with alarmd: choose another name")
        }
        if Self.names(in: householdDirectory).contains(name) {
            throw ControlError(.refused, "a sound named \"\(name)\" is already kept: delete it first, or choose another name")
        }
    }

    private func makeHouseholdDirectory() throws {
        guard mkdir(householdDirectory, 0o750) == 0 || errno == EEXIST else {
            throw ControlError(.storageFailure, "\(householdDirectory) could not be made: \(String(cString: strerror(errno)))")
        }
    }

    private func requireRoom(for count: Int) throws {
        var info = statvfs()
        guard statvfs(householdDirectory, &info) == 0 else { return }
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
        guard written == bytes.count else {
            let failure = storageFailure("write", path)
            unlink(path)  // a short write leaves a file of unknown length: the sender starts again
            throw failure
        }
    }

    /// Checks the finished upload as an alarm would play it, then keeps it durably under `name`.
    private func keep(_ partial: String, as name: String) async throws {
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
            unlink(partial)
            throw ControlError(.invalidConfiguration, "\(name) is not a sound alarmd can ring with: \(reason)")
        }
        try refuseTakenName(name)
        let path = householdDirectory + "/" + name
        guard rename(partial, path) == 0 else { throw storageFailure("rename", path) }
        syncDirectory()
        logger.notice("Sound added", metadata: ["sound": "\(name)", "sound.bytes": "\(Self.size(of: path))"])
        await namesChanged(Self.names(in: householdDirectory))
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

    /// The playable sound files of `directory` (regular files, or links to them, with a sound's
    /// extension and not hidden).
    static func names(in directory: String) -> Set<String> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(entries.filter { name in
            !name.hasPrefix(".") && SoundFileReader.fileExtensions.contains { name.lowercased().hasSuffix("." + $0) }
        })
    }

    static func size(of path: String, missing: Int = 0) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : missing
    }
}
