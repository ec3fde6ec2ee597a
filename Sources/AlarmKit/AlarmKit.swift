@_exported import AlarmKitCore
import AlarmClient
import AlarmProtocol
// The API is made of `UUID`, `Date` and `Locale.Weekday`: a file that imports only AlarmKit
// names them, as on Apple's platforms.
@_exported import FoundationEssentials
import Glibc

extension AlarmManager {
    /// The manager of this process's alarms on this device's `alarmd`: the client is the
    /// process's user, as the daemon reads it from the socket, and the app is ``appIdentifier``.
    ///
    /// The socket is `$ALARMD_SOCKET`, else `/run/alarmd/control.sock`. It connects on first use
    /// and again after the daemon restarts; ``alarmUpdates`` and ``authorizationUpdates`` go on
    /// across restarts.
    public static let shared = AlarmManager(backend: SocketAlarmBackend(path: sharedSocketPath, app: appIdentifier))

    /// The app this process is, as it tells `alarmd`: `$ALARMKIT_APP_ID` if set and not empty
    /// (the bundle identifier of Apple's platforms, e.g. `com.example.eggs`), else the file name
    /// of its executable. Alarms it schedules deliver their intents to processes of the same
    /// user and app only, and of those exactly one runs each (``handleIntents(_:)``).
    public static var appIdentifier: String? {
        if let id = getenv("ALARMKIT_APP_ID").map({ String(cString: $0) }), !id.isEmpty { return id }
        return executableName
    }

    /// The file name of this process's executable (`/proc/self/exe`), else of its `argv[0]`.
    static var executableName: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let path = length > 0
            ? String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : CommandLine.arguments.first ?? ""
        // A binary replaced while running (an upgrade) reads as "NAME (deleted)".
        var name = path.split(separator: "/").last.map(String.init) ?? ""
        if name.hasSuffix(" (deleted)") { name.removeLast(" (deleted)".count) }
        guard (1...128).contains(name.count) else { return nil }
        return name
    }

    /// `$ALARMD_SOCKET` if set and not empty, else alarmd's default socket.
    static var sharedSocketPath: String {
        if let path = getenv("ALARMD_SOCKET").map({ String(cString: $0) }), !path.isEmpty { return path }
        return ControlProtocol.defaultSocketPath
    }
}
