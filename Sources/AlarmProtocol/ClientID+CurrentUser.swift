import AlarmModel
import Glibc

extension ClientID {
    /// The user this process runs as.
    public static var currentUser: ClientID { ClientID(rawValue: getuid()) }
}
