import AlarmClient
import AlarmProtocol
import ArgumentParser
import FoundationEssentials

/// `--socket PATH`, a global option: given before the command (`alarmctl --socket P list`, as
/// systemctl and git take theirs) or after it (`alarmctl list --socket P`).
///
/// ``AlarmCtl`` and every command that talks to the daemon hold this group. ArgumentParser
/// decodes it once, for the root command, from wherever `--socket` is on the command line, and
/// hands that value to the command's own group.
struct SocketOptions: ParsableArguments {
    static let defaultPath = ControlProtocol.defaultSocketPath
    static let environmentVariable = "ALARMD_SOCKET"

    // Every occurrence, so that two different sockets are refused rather than one silently used.
    @Option(name: .customLong("socket"), help: ArgumentHelp(
        "alarmd's control socket, once, before or after the command (default: $ALARMD_SOCKET, else \(SocketOptions.defaultPath)).",
        valueName: "PATH"))
    var sockets: [String] = []

    var socket: String? { sockets.first }

    /// `--socket`, else `$ALARMD_SOCKET` (if not empty), else the default.
    var path: String {
        if let socket { return socket }
        if let variable = ProcessInfo.processInfo.environment[Self.environmentVariable], !variable.isEmpty {
            return variable
        }
        return Self.defaultPath
    }

    func validate() throws {
        if let socket, socket.isEmpty { throw ValidationError("invalid socket path \"\": it is empty") }
        if let socket, let other = sockets.first(where: { $0 != socket }) {
            throw ValidationError("--socket is given twice, as \"\(socket)\" and \"\(other)\"; give it once, before or after the command")
        }
    }

    /// A session with the daemon, connected and greeted; 69 or 77 if it cannot be reached.
    func connect() async throws -> DaemonSession {
        try await DaemonSession.connect(path: path)
    }
}
