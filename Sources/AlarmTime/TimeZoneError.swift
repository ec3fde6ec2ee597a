import Glibc

/// Why zone rules could not be obtained; `description` is a sentence fit for a log or an error message.
public enum TimeZoneError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The name is not acceptable as a zone name: empty, absolute, containing ".." or a NUL byte.
    case invalidZoneName(String)
    /// No zone of this name exists in the database (nor does it parse as a POSIX TZ string, where that was tried).
    case unknownZone(String)
    /// The file exists (or might) but could not be read; `errno` is the failing call's error number.
    case unreadableFile(path: String, errno: Int32)
    /// Something other than a regular file is in the file's place: `kind` is "a FIFO", "a device"
    /// or "a socket". It is refused without reading, for a FIFO or a terminal would block the reader.
    case notRegularFile(path: String, kind: String)
    /// The data is not a valid TZif file; `source` is the path or identifier, `reason` says what is wrong.
    case malformedTZif(source: String, reason: String)
    /// The string is not a valid POSIX TZ string; `reason` says where it went wrong.
    case malformedPOSIXTZ(String, reason: String)

    /// A human-readable explanation naming the zone, file or string concerned.
    public var description: String {
        switch self {
        case .invalidZoneName(let name):
            "invalid time zone name \"\(name)\": must be relative, non-empty and free of \"..\""
        case .unknownZone(let name):
            "unknown time zone \"\(name)\""
        case .unreadableFile(let path, let code):
            "cannot read time zone file \(path): \(TimeZoneError.describe(errno: code))"
        case .notRegularFile(let path, let kind):
            "cannot read time zone file \(path): \(kind), not a regular file"
        case .malformedTZif(let source, let reason):
            "malformed TZif data in \(source): \(reason)"
        case .malformedPOSIXTZ(let string, let reason):
            "malformed POSIX TZ string \"\(string)\": \(reason)"
        }
    }

    /// Names for the errors file access can report; avoids `strerror`, which is not thread-safe.
    static func describe(errno code: Int32) -> String {
        switch code {
        case ENOENT: "no such file or directory (ENOENT)"
        case ENOTDIR: "a path component is not a directory (ENOTDIR)"
        case EACCES: "permission denied (EACCES)"
        case EPERM: "operation not permitted (EPERM)"
        case EISDIR: "is a directory (EISDIR)"
        case ELOOP: "too many symbolic links (ELOOP)"
        case ENAMETOOLONG: "file name too long (ENAMETOOLONG)"
        case EIO: "input/output error (EIO)"
        case EMFILE, ENFILE: "too many open files (EMFILE)"
        case EFBIG: "file too large (EFBIG)"
        case ENOMEM: "out of memory (ENOMEM)"
        default: "errno \(code)"
        }
    }
}
