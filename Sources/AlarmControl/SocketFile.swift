import AlarmProtocol
import Glibc

/// What is at the control socket's path, looked at without following a symbolic link (`lstat`),
/// so that the server removes a socket file and nothing else, and at shutdown only its own.
enum SocketFile: Equatable {
    case missing
    /// A socket, with the device and inode that tell it apart from one created later in its place.
    case socket(device: UInt64, inode: UInt64)
    /// Anything else, a symbolic link included.
    case other

    /// Looks at `path`.
    /// - Throws: `stat` with the errno of any failure but `ENOENT` (which is ``missing``).
    init(at path: String) throws(ControlSocketError) {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            guard errno == ENOENT else { throw ControlSocketError("stat", path: path, errno: errno) }
            self = .missing
            return
        }
        self = status.st_mode & S_IFMT == S_IFSOCK ? .socket(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)) : .other
    }
}
