@_exported import AlarmKitCore
import AlarmClient
import AlarmProtocol
// The API is made of `UUID`, `Date` and `Locale.Weekday`: a file that imports only AlarmKit
// names them, as on Apple's platforms.
@_exported import FoundationEssentials
import Glibc

extension AlarmManager {
    /// The manager of this process's alarms on this device's `alarmd`: the client is the
    /// process's user, as the daemon reads it from the socket.
    ///
    /// The socket is `$ALARMD_SOCKET`, else `/run/alarmd/control.sock`. It connects on first use
    /// and again after the daemon restarts; ``alarmUpdates`` and ``authorizationUpdates`` go on
    /// across restarts.
    public static let shared = AlarmManager(backend: SocketAlarmBackend(path: sharedSocketPath))

    /// `$ALARMD_SOCKET` if set and not empty, else alarmd's default socket.
    static var sharedSocketPath: String {
        if let path = getenv("ALARMD_SOCKET").map({ String(cString: $0) }), !path.isEmpty { return path }
        return ControlProtocol.defaultSocketPath
    }
}
