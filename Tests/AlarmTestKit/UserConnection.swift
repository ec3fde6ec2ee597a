import AlarmClient
import AlarmProtocol
import CTestSupport

extension UnixSocket {
    /// A non-blocking descriptor connected to `path` with another effective uid and gid, so the
    /// daemon sees that user as the peer (root only).
    package static func connect(to path: String, uid: UInt32, gid: UInt32) throws(ControlSocketError) -> Int32 {
        let fd = alarmd_unix_connect_as(path, uid, gid)
        guard fd >= 0 else { throw ControlSocketError("connect as uid \(uid)", path: path, errno: -fd) }
        return fd
    }
}

extension ControlClient.Connector {
    /// Connects to the socket at `path` as another user: the daemon sees `uid` and `gid` as the
    /// peer. Only root may.
    package static func unixSocket(path: String, actingAsUID uid: UInt32, gid: UInt32) -> ControlClient.Connector {
        ControlClient.Connector(path: path) { () throws(ControlSocketError) in try UnixSocket.connect(to: path, uid: uid, gid: gid) }
    }
}
