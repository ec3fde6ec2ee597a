import CUnixSocket
import Glibc
import LinuxSupport
import Synchronization

/// A failed socket call: what was attempted, on which path, and the errno.
public struct ControlSocketError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What failed, e.g. `bind` or `connect`.
    public var operation: String
    public var path: String
    public var errno: Int32

    public init(_ operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(errno)))"
    }
}

/// The socket calls of the control socket, over the C shim (`CUnixSocket`). Descriptors
/// are plain `Int32`s owned by whoever opened them; every wrapper retries EINTR in C.
package enum UnixSocket {
    /// A non-blocking descriptor connected to `path`.
    package static func connect(to path: String) throws(ControlSocketError) -> Int32 {
        let fd = alarmd_unix_connect(path)
        guard fd >= 0 else { throw ControlSocketError("connect", path: path, errno: -fd) }
        return fd
    }

    /// The result of a non-blocking send or receive.
    package enum Transfer: Equatable {
        case done(Int)
        case wouldBlock
        /// The peer is gone or the socket failed; for receive, `done(0)` is the end of stream.
        case failed(Int32)
    }

    package static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Transfer {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .done(0) }
        let sent = alarmd_socket_send(fd, base, bytes.count)
        if sent >= 0 { return .done(sent) }
        return Int32(-sent) == EAGAIN || Int32(-sent) == EWOULDBLOCK ? .wouldBlock : .failed(Int32(-sent))
    }

    package static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Transfer {
        guard let base = buffer.baseAddress else { return .done(0) }
        let received = alarmd_socket_receive(fd, base, buffer.count)
        if received >= 0 { return .done(received) }
        return Int32(-received) == EAGAIN || Int32(-received) == EWOULDBLOCK ? .wouldBlock : .failed(Int32(-received))
    }

    /// The peer's pid, effective uid and effective gid at connect time (`SO_PEERCRED`).
    package static func peerCredentials(_ fd: Int32) -> (pid: Int32, uid: UInt32, gid: UInt32)? {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
        guard alarmd_peer_credentials(fd, &pid, &uid, &gid) == 0 else { return nil }
        return (pid, uid, gid)
    }

    package static func close(_ fd: Int32) {
        // Linux releases the descriptor even when close reports EINTR: never retry.
        _ = Glibc.close(fd)
    }
}

extension EventSignal {
    /// An eventfd that wakes a `poll()` loop from any thread, or the socket error naming it.
    package static func wakingPoll() throws(ControlSocketError) -> EventSignal {
        guard let signal = EventSignal() else { throw ControlSocketError("eventfd", path: "", errno: errno) }
        return signal
    }
}
