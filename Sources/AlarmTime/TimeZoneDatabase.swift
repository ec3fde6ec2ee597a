import AlarmModel
import FoundationEssentials
import Glibc
import LinuxSupport

/// Reads zone rules from the system's tz database, so that an OS tzdata update changes behaviour.
///
/// Nothing is cached: each call reads the file again (about a hundred microseconds), which is what
/// picks up an update without a restart.
public struct TimeZoneDatabase: Sendable {
    /// The directory holding TZif files, named by zone ("Europe/Berlin" is `root + "/Europe/Berlin"`).
    public let root: String

    public init(root: String = "/usr/share/zoneinfo") {
        self.root = root
    }

    /// Loads the zone called `name`, e.g. "Europe/Berlin"; the name becomes the rules' identifier.
    ///
    /// - Throws: `.invalidZoneName` for an empty or absolute name, one with a ".." component or a NUL;
    ///   `.unknownZone` when no such file exists (or it is a directory); `.unreadableFile` or
    ///   `.notRegularFile` for other file errors (a FIFO in the zone's place is refused, never
    ///   waited on); `.malformedTZif` when the file is not valid TZif (e.g. "zone.tab").
    public func rules(named name: String) throws(TimeZoneError) -> TimeZoneRules {
        guard TimeZoneDatabase.isValidName(name) else { throw .invalidZoneName(name) }
        guard let rules = try rulesIfPresent(named: name) else { throw .unknownZone(name) }
        return rules
    }

    /// Loads a TZif file by absolute or relative path, naming the result `identifier`.
    ///
    /// Never blocks on what is put in the file's place: the open is non-blocking, and only a
    /// regular file of at most ``SystemFile/maximumSize`` is read.
    ///
    /// - Throws: `.unreadableFile` with the path and errno (`EFBIG` for a file too large to be
    ///   zone rules), `.notRegularFile` for a FIFO, a device or a socket, or `.malformedTZif` with
    ///   the path.
    public func rules(atPath path: String, identifier: String) throws(TimeZoneError) -> TimeZoneRules {
        switch SystemFile.read(path, regularFileOnly: true) {
        case .failure(let error):
            if let kind = error.notRegularFile { throw .notRegularFile(path: path, kind: kind) }
            throw .unreadableFile(path: path, errno: error.code)
        case .success(let bytes):
            do {
                return try TimeZoneRules(tzif: bytes, identifier: identifier)
            } catch .malformedTZif(_, let reason) {
                throw .malformedTZif(source: path, reason: reason)
            } catch {
                throw error
            }
        }
    }

    /// The zone rules libc would use for `environment`, except that unknown zones are errors, not UTC.
    ///
    /// - TZ unset: the file at `localtimePath`, named after its symbolic link's target following
    ///   ".../zoneinfo/" ("localtime" otherwise); UTC when the file does not exist.
    /// - TZ empty or ":": UTC.
    /// - TZ "/path" or ":/path": that file, named after the part following ".../zoneinfo/" if any, else the path.
    /// - TZ "Name" or ":Name" naming a file under `root`: that zone.
    /// - Otherwise TZ as a POSIX TZ string (with or without the colon).
    /// - Throws: `.unknownZone` for a name that is neither a file nor a POSIX string (e.g. "Mars/Olympus");
    ///   `.malformedPOSIXTZ` for a string that looks like POSIX TZ but is invalid; file errors as for
    ///   ``rules(atPath:identifier:)``.
    public func systemZone(environment: [String: String], localtimePath: String = "/etc/localtime") throws(TimeZoneError) -> TimeZoneRules {
        guard var spec = environment["TZ"] else {
            let link = try? FileManager.default.destinationOfSymbolicLink(atPath: localtimePath)
            let identifier = link.flatMap(TimeZoneDatabase.zoneName(inPath:)) ?? "localtime"
            do {
                return try rules(atPath: localtimePath, identifier: identifier)
            } catch .unreadableFile(_, ENOENT) {
                return .utc
            }
        }
        if spec.first == ":" { spec.removeFirst() }
        if spec.isEmpty { return .utc }
        if spec.first == "/" {
            return try rules(atPath: spec, identifier: TimeZoneDatabase.zoneName(inPath: spec) ?? spec)
        }
        let validName = TimeZoneDatabase.isValidName(spec)
        if validName, let rules = try rulesIfPresent(named: spec) { return rules }
        do {
            return try TimeZoneRules(posix: spec)
        } catch {
            if !validName { throw .invalidZoneName(spec) }
            let hasDigit = spec.utf8.contains(where: TextScanner.isDigit)
            if !hasDigit || (spec.contains("/") && !spec.contains(",")) { throw .unknownZone(spec) }
            throw error
        }
    }

    /// Loads `name` under `root`, or returns nil when there is no such file.
    private func rulesIfPresent(named name: String) throws(TimeZoneError) -> TimeZoneRules? {
        do {
            return try rules(atPath: root + "/" + name, identifier: name)
        } catch .unreadableFile(_, let code) where code == ENOENT || code == ENOTDIR || code == EISDIR {
            return nil
        }
    }

    /// Names that stay inside `root`: relative, non-empty, no ".." component, no NUL, of sane length.
    static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 1_024, name.first != "/", !name.utf8.contains(0) else { return false }
        return !name.split(separator: "/", omittingEmptySubsequences: false).contains("..")
    }

    /// "Europe/Berlin" from ".../zoneinfo/Europe/Berlin" (the last "zoneinfo" component); nil if absent.
    static func zoneName(inPath path: String) -> String? {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        guard let marker = components.lastIndex(of: "zoneinfo"), marker + 1 < components.count else { return nil }
        return components[(marker + 1)...].joined(separator: "/")
    }
}
