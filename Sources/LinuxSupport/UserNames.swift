import Glibc

/// Local users by name or uid, from the password database (`getpwnam_r`, `getpwuid_r`).
public enum UserNames {
    /// The login name of `uid`; `nil` if the database has none.
    public static func name(of uid: UInt32) -> String? {
        withEntry({ getpwuid_r(uid, &$0, $1, $2, &$3) }) { String(cString: $0.pw_name) }
    }

    /// The uid of the user called `name`; `nil` if there is none.
    public static func uid(named name: String) -> UInt32? {
        withEntry({ getpwnam_r(name, &$0, $1, $2, &$3) }) { $0.pw_uid }
    }

    /// Runs a reentrant look-up with a buffer that grows on ERANGE.
    private static func withEntry<Value>(
        _ lookUp: (inout passwd, UnsafeMutablePointer<CChar>, Int, inout UnsafeMutablePointer<passwd>?) -> Int32,
        _ read: (passwd) -> Value
    ) -> Value? {
        var size = 1024
        while size <= 1 << 20 {
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
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
