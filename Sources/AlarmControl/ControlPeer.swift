import AlarmEngine
import AlarmModel
import AlarmProtocol
import LinuxSupport

/// Who is at the other end of a control connection, as the kernel vouches (`SO_PEERCRED`).
public struct ControlPeer: Hashable, Sendable, CustomStringConvertible {
    /// The effective uid of the connecting process: the client whose alarms it sees and changes.
    public var uid: UInt32
    public var gid: UInt32
    /// Its process id at connect time (for logs only: pids are reused).
    public var pid: Int32
    /// Root, or a member of the administrators' group: always authorized, may list every client's
    /// alarms and grant or revoke clients.
    public var isAdministrator: Bool

    public init(uid: UInt32, gid: UInt32, pid: Int32, isAdministrator: Bool) {
        self.uid = uid
        self.gid = gid
        self.pid = pid
        self.isAdministrator = isAdministrator
    }

    /// The engine's client for this peer.
    public var client: ClientID { ClientID(rawValue: uid) }

    public var description: String { "uid \(uid) (pid \(pid)\(isAdministrator ? ", administrator" : ""))" }
}

/// Who administers the daemon: root, and the members of one group.
public struct ControlAdministrators: Hashable, Sendable {
    /// The administrators' group; `nil` when only root administers.
    public var groupID: UInt32?

    public init(groupID: UInt32?) {
        self.groupID = groupID
    }

    /// Whether `uid` administers: root always; otherwise if `gid` (the peer's effective group) is
    /// the group, or the account database lists the user in it (`getgrouplist`). Blocks while
    /// the account database is read (local files on the device).
    public func includes(uid: UInt32, gid: UInt32? = nil) -> Bool {
        if uid == 0 { return true }
        guard let groupID else { return false }
        if gid == groupID { return true }
        return UserNames.user(uid, isMemberOf: groupID) == true
    }

    /// The id of the group called `name`, or `nil` if there is none.
    public static func groupID(named name: String) -> UInt32? {
        UserNames.groupID(named: name)
    }
}
