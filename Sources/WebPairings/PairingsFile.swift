import FoundationEssentials
import Glibc

/// A browser the person at the clock let in: it holds `token` in an HttpOnly cookie.
public struct Pairing: Codable, Hashable, Sendable {
    public var id: String
    public var name: String
    public var token: String
    public var created: Date
    public var lastSeen: Date

    public init(id: String, name: String, token: String, created: Date, lastSeen: Date) {
        self.id = id
        self.name = name
        self.token = token
        self.created = created
        self.lastSeen = lastSeen
    }
}

/// The phone page's paired browsers, `pairings.json` in its state directory: written by
/// alarm-web when a browser pairs or is revoked from the page, and by `alarmctl web revoke`.
/// The file is replaced whole (written, synced, renamed), keeping the directory's owner, so
/// alarm-web notices a change by the file's identity.
public enum PairingsFile {
    public static func path(in directory: String) -> String { directory + "/pairings.json" }

    public struct Version: Equatable, Sendable {
        var inode: UInt64
        var modified: Int
        var nanoseconds: Int
    }

    /// What is on disk now, if the file exists.
    public static func version(in directory: String) -> Version? {
        var info = stat()
        guard stat(path(in: directory), &info) == 0 else { return nil }
        return Version(inode: UInt64(info.st_ino), modified: info.st_mtim.tv_sec, nanoseconds: info.st_mtim.tv_nsec)
    }

    /// The pairings; none when the file does not exist. Throws when it cannot be read or decoded.
    public static func read(in directory: String) throws -> [Pairing] {
        guard let data = FileManager.default.contents(atPath: path(in: directory)) else {
            if access(path(in: directory), F_OK) != 0 { return [] }
            throw PairingsFileError(description: "\(path(in: directory)) cannot be read: \(String(cString: strerror(errno)))")
        }
        return try JSONDecoder.web.decode([Pairing].self, from: data)
    }

    /// Replaces the file with `pairings`, owned as the directory is and readable by it alone.
    public static func write(_ pairings: [Pairing], in directory: String) throws {
        let data = try JSONEncoder.web.encode(pairings)
        let temporary = path(in: directory) + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("cannot create \(temporary)") }
        defer { close(descriptor) }
        var owner = stat()
        if getuid() == 0, stat(directory, &owner) == 0 { fchown(descriptor, owner.st_uid, owner.st_gid) }
        let written = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count, fsync(descriptor) == 0 else { throw failure("cannot write \(temporary)") }
        guard rename(temporary, path(in: directory)) == 0 else { throw failure("cannot replace \(path(in: directory))") }
    }

    private static func failure(_ what: String) -> PairingsFileError {
        PairingsFileError(description: "\(what): \(String(cString: strerror(errno)))")
    }

}

/// The phone page's JSON, on disk and on the wire: ISO 8601 dates, sorted keys.
extension JSONEncoder {
    public static var web: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    public static var web: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

public struct PairingsFileError: Error, CustomStringConvertible {
    public var description: String
}
