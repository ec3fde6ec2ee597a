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
        let message = states.map(\.assignment).joined(separator: "\n")
        let failure = address.sendDatagram(Array(message.utf8))
        if failure != 0 {
            throw SystemdNotifyError("cannot notify systemd at \(address): \(String(cString: strerror(failure)))")
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

        /// Sends `message` as one datagram on a socket opened for the call and closed again, as
        /// sd_notify does, so a manager that re-created its socket (`systemctl daemon-reexec`) is
        /// still reached. Never blocks (a full queue is `EAGAIN`), never raises SIGPIPE, retries
        /// EINTR. Returns 0 or the errno (`EINVAL` for a name that does not fit a `sockaddr_un`).
        func sendDatagram(_ message: [UInt8]) -> Int32 {
            // An abstract name starts with NUL and its length counts no terminator: "@x" and
            // "@x\0" are two different sockets.
            let name: [UInt8] = switch self {
            case .path(let path): Array(path.utf8) + [0]
            case .abstract(let name): [0] + Array(name.utf8)
            }
            var address = sockaddr_un()
            guard name.count > 1, name.count <= MemoryLayout.size(ofValue: address.sun_path) else { return EINVAL }
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
            let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + name.count)
            let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return errno }
            defer { close(fd) }
            var sent: Int
            repeat {
                sent = message.withUnsafeBytes { bytes in
                    withUnsafePointer(to: &address) { pointer in
                        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), $0, length)
                        }
                    }
                }
            } while sent < 0 && errno == EINTR
            if sent < 0 { return errno }
            return sent == message.count ? 0 : EMSGSIZE
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
