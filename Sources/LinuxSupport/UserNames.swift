import Glibc

/// Local users by name or uid, from the password database (`getpwnam_r`, `getpwuid_r`); their
/// groups in ``UserNames+Groups.swift``.
public enum UserNames {
    /// The login name of `uid`; `nil` if the database has none.
    public static func name(of uid: UInt32) -> String? {
        withEntry({ getpwuid_r(uid, &$0, $1, $2, &$3) }) { (entry: passwd) in String(cString: entry.pw_name) }
    }

    /// The uid of the user called `name`; `nil` if there is none.
    public static func uid(named name: String) -> UInt32? {
        withEntry({ getpwnam_r(name, &$0, $1, $2, &$3) }) { (entry: passwd) in entry.pw_uid }
    }

    /// Runs a reentrant look-up (`getpwuid_r`, `getgrnam_r`…) with a buffer that grows on ERANGE;
    /// `nil` when it finds nothing or fails.
    static func withEntry<Entry, Value>(
        _ lookUp: (inout Entry, UnsafeMutablePointer<CChar>, Int, inout UnsafeMutablePointer<Entry>?) -> Int32,
        _ read: (Entry) -> Value?
    ) -> Value? where Entry: EmptyInitializable {
        var size = 1024
        while size <= 1 << 20 {
            var entry = Entry()
            var result: UnsafeMutablePointer<Entry>?
            var buffer = [CChar](repeating: 0, count: size)
            // The entry's strings point into the buffer: read them while it is alive.
            let (status, value) = buffer.withUnsafeMutableBufferPointer { storage -> (Int32, Value?) in
                let status = lookUp(&entry, storage.baseAddress!, storage.count, &result)
                return (status, status == 0 && result != nil ? read(entry) : nil)
            }
            if status == ERANGE {
                size *= 4
                continue
            }
            return value
        }
        return nil
    }
}

/// A C structure that `init()` zeroes: what a reentrant look-up fills in.
protocol EmptyInitializable {
    init()
}

extension passwd: EmptyInitializable {}
extension group: EmptyInitializable {}
