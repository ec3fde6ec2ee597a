import AlarmControl
import ArgumentParser
import FoundationEssentials

/// `--socket PATH`, shared by every command that talks to the daemon.
struct SocketOptions: ParsableArguments {
    /// Where alarmd listens unless told otherwise.
    static let defaultPath = ControlProtocol.defaultSocketPath
    /// The environment variable that overrides ``defaultPath``.
    static let environmentVariable = "ALARMD_SOCKET"

    @Option(name: .customLong("socket"), help: ArgumentHelp(
        "alarmd's control socket (default: $ALARMD_SOCKET, else \(SocketOptions.defaultPath)).", valueName: "PATH"))
    var socket: String?

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
    }

    /// A session with the daemon, connected and greeted.
    ///
    /// - Throws: ``CommandFailure`` (69, 77) if the daemon cannot be reached.
    func connect() async throws -> DaemonSession {
        try await DaemonSession.connect(path: path)
    }
}
