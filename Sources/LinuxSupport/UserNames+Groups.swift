import Glibc

/// Local groups and their members, from the account database (`getgrnam_r`, `getgrouplist`).
extension UserNames {
    /// The id of the group called `name`; `nil` if there is none.
    public static func groupID(named name: String) -> UInt32? {
        withEntry({ getgrnam_r(name, &$0, $1, $2, &$3) }) { (entry: group) in entry.gr_gid }
    }

    /// Whether the user `uid` belongs to the group `gid`: as its primary group or a supplementary
    /// one. `nil` when the database has no user `uid` or cannot be read. Blocks while the account
    /// database is read (local files on the device; a network directory could take longer).
    public static func user(_ uid: UInt32, isMemberOf gid: UInt32) -> Bool? {
        let account = withEntry({ getpwuid_r(uid, &$0, $1, $2, &$3) }) { (entry: passwd) in
            (name: String(cString: entry.pw_name), primaryGroup: entry.pw_gid)
        }
        guard let account else { return nil }
        if account.primaryGroup == gid { return true }
        return groups(of: account.name, primaryGroup: account.primaryGroup)?.contains(gid)
    }

    /// Every group of the user called `name` (`getgrouplist`), `primaryGroup` included.
    private static func groups(of name: String, primaryGroup: UInt32) -> [UInt32]? {
        var capacity: Int32 = 32
        // getgrouplist says how many it needs when they do not fit: at most a second try.
        while capacity <= 65_536 {
            var count = capacity
            var groups = [gid_t](repeating: 0, count: Int(capacity))
            if getgrouplist(name, primaryGroup, &groups, &count) >= 0 {
                return Array(groups.prefix(Int(count)))
            }
            capacity = max(count, capacity * 2)
        }
        return nil
    }
}
