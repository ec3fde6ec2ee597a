import CLinuxSupport
import Glibc

/// Tells systemd how the service is doing (`Type=notify`): the sd_notify protocol, written here
/// rather than linked from libsystemd. Each message is one datagram of `KEY=VALUE` lines to the
/// socket in `NOTIFY_SOCKET`.
///
/// Without `NOTIFY_SOCKET` (started from a shell) every send does nothing. Sending never blocks
/// for long: a datagram to a local socket is queued or refused at once.
public struct SystemdNotifier: Hashable, Sendable {
    /// Where the messages go; `nil` when not started by systemd with `Type=notify`.
    public let address: Address?

    public init(address: Address?) {
        self.address = address
    }

    /// Reads `NOTIFY_SOCKET` from `environment`: unset or empty disables the notifier. Log a
    /// value that throws: systemd will time the start-up out, and the log should say why.
    public init(environment: [String: String]) throws(SystemdNotifyError) {
        guard let value = environment["NOTIFY_SOCKET"], !value.isEmpty else {
            self.init(address: nil)
            return
        }
        guard let address = Address(value) else {
            throw SystemdNotifyError("NOTIFY_SOCKET \"\(value)\" is neither an absolute path nor an abstract name (@name) of at most 107 bytes")
        }
        self.init(address: address)
    }

    /// The variables this module reads (`NOTIFY_SOCKET`, `WATCHDOG_USEC`, `WATCHDOG_PID`), from
    /// this process's environment.
    public static func processEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }

    /// Sends `states` as one message (systemd applies them together). An error (the manager's
    /// socket is gone: `ECONNREFUSED` or `ENOENT`) is not fatal: log it and go on.
    public func send(_ states: State...) throws(SystemdNotifyError) {
        try send(states)
    }

    public func send(_ states: [State]) throws(SystemdNotifyError) {
        guard let address, !states.isEmpty else { return }
        var message = states.map(\.assignment).joined(separator: "\n")
        let result = message.withUTF8 { bytes in
            alarmd_notify_send(address.description, bytes.baseAddress, bytes.count)
        }
        if result < 0 {
            throw SystemdNotifyError("cannot notify systemd at \(address): \(String(cString: strerror(-result)))")
        }
    }
}

extension SystemdNotifier {
    /// A socket address as `NOTIFY_SOCKET` writes it.
    public enum Address: Hashable, Sendable, CustomStringConvertible {
        /// A socket file (`/run/systemd/notify`).
        case path(String)
        /// A name in the abstract namespace (`@name`, here without the `@`). Abstract names belong
        /// to a network namespace: a service with `PrivateNetwork=yes` cannot reach one.
        case abstract(String)

        /// `/path` or `@name`; `nil` for anything else, including addresses longer than a
        /// `sockaddr_un` holds (107 bytes for a path, 107 for an abstract name with its `@`).
        public init?(_ text: String) {
            let length = text.utf8.count
            if text.hasPrefix("/"), length <= 107, !text.utf8.contains(0) {
                self = .path(text)
            } else if text.hasPrefix("@"), length >= 2, length <= 108, !text.utf8.contains(0) {
                self = .abstract(String(text.dropFirst()))
            } else {
                return nil
            }
        }

        public var description: String {
            switch self {
            case .path(let path): path
            case .abstract(let name): "@" + name
            }
        }
    }

    /// One assignment of the protocol (`man sd_notify`).
    public enum State: Hashable, Sendable {
        /// `READY=1`: start-up is finished; `systemctl start` returns.
        case ready
        case stopping
        /// `WATCHDOG=1`: alive; see ``WatchdogPinger``.
        case watchdog
        /// `STATUS=...`: one line for `systemctl status`. Line breaks become spaces: a newline
        /// would end the assignment.
        case status(String)

        public var assignment: String {
            switch self {
            case .ready: "READY=1"
            case .stopping: "STOPPING=1"
            case .watchdog: "WATCHDOG=1"
            case .status(let text): "STATUS=" + String(text.map { $0.isNewline ? " " : $0 })
            }
        }
    }
}

/// A notification that could not be sent, or a `NOTIFY_SOCKET` or `WATCHDOG_USEC` that makes no
/// sense. The description is one line for the log.
public struct SystemdNotifyError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
