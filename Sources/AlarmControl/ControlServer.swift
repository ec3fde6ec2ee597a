import AlarmEngine
import AlarmKitCore
import AlarmProtocol
import AlarmTime
import BuildVersion
import CUnixSocket
import Glibc
import LinuxSupport
import Logging
import Synchronization

/// `alarmd`'s control socket: serves the AlarmKit API, subscriptions and the administrators'
/// operations to local clients over a Unix stream socket (``ControlProtocol``).
///
/// ```swift
/// let server = ControlServer(
///     configuration: .init(socketPath: "/run/alarmd/control.sock", socketGroupID: alarmGroup,
///                          administrators: .init(groupID: ControlAdministrators.groupID(named: "alarmadmin"))),
///     runtime: runtime, logger: logger)
/// try server.start()
/// await server.stop()        // closes every connection
/// ```
///
/// - The client is the peer's effective uid (`SO_PEERCRED`): it sees and changes only its own
///   alarms. Root and the administrators' group are always authorized and may use `allAlarms`,
///   `authorizations` and `setAuthorization`.
/// - One I/O thread of its own runs `poll()` over the listening socket and every connection, all
///   non-blocking; requests are handled by one task per connection, one at a time in order,
///   calling the ``AlarmRuntime`` actor. A request that waits for a person (`requestAuthorization`,
///   or the first `schedule` of an undetermined client) waits on the side and holds up nothing.
/// - Limits: lines of ``ControlProtocol/maximumRequestSize``; connections of ordinary users
///   (``Configuration/maximumClients``, and ``Configuration/maximumClientsPerUser`` for each), with
///   root and the administrators in a pool of their own; an idle timeout; a bound on each
///   connection's unread events (a client that does not read them is disconnected); requests in
///   flight and subscriptions per connection. Answers are not bounded: each is written as the
///   socket drains (``ControlConnection``), so one of any size reaches a client that reads it.
/// - Bad input gets an error reply and changes nothing; a line too large gets one and the
///   connection is closed. Nothing a client sends can stop the server.
public final class ControlServer: Sendable {
    public struct Configuration: Sendable {
        /// The socket's path. Its directory must exist (systemd's `RuntimeDirectory=`); a stale
        /// socket there is replaced, anything else is left alone and refused.
        public var socketPath: String
        /// The socket file's group (mode 0660); `nil` keeps the daemon's group.
        public var socketGroupID: UInt32?
        public var administrators: ControlAdministrators
        /// Connections of ordinary users (neither root nor administrators) at once, all users
        /// together; one more gets a `busy` error line and is closed.
        public var maximumClients = 64
        /// Connections of one ordinary user at once (subscribers included): one user cannot take
        /// every slot from the others. One more gets `busy`.
        public var maximumClientsPerUser = 16
        /// Connections of root and the administrators at once, apart from ``maximumClients``: the
        /// device's own clients (the phone page) and root are admitted however many connections
        /// ordinary users hold.
        public var maximumAdministratorClients = 32
        /// A connection with no request pending and no subscription is closed after this long
        /// idle, as is one that leaves output unread this long; `nil` closes none.
        public var idleTimeout: Duration? = .seconds(300)
        /// Unwritten event and error bytes per connection; a client that lets more pile up is
        /// disconnected. Answers to requests do not count: they are written as the socket drains.
        public var outputLimit = 1 << 20
        /// Unanswered requests per connection; more get `busy`.
        public var maximumPendingRequests = 32
        /// Subscriptions per connection; more get `busy`.
        public var maximumSubscriptions = 16
        /// Checks the `.named` sound an alarm is scheduled or replaced with, and says why it cannot
        /// ring (a missing or undecodable file), so that it is refused then, not found out at the
        /// alarm; `nil` checks nothing (the name's form is checked in any case).
        public var soundCheck: (@Sendable (_ name: String) async -> String?)?
        /// A new stream of the clock's button presses (`stop`, `snooze`) for each `subscribeDevice`
        /// (``DeviceChange/button``); `nil`: a device without buttons to report.
        public var buttonPresses: (@Sendable () -> AsyncStream<String>)?
        /// Reported by `hello`.
        public var serverName = "alarmd"
        /// Reported by `hello`: this build's version, the one `alarmd --version` and the package show.
        public var serverVersion = AlarmdVersion.current

        public init(socketPath: String, socketGroupID: UInt32? = nil, administrators: ControlAdministrators = .init(groupID: nil)) {
            self.socketPath = socketPath
            self.socketGroupID = socketGroupID
            self.administrators = administrators
        }
    }

    let configuration: Configuration
    let runtime: AlarmRuntime
    /// The protocol's own operations and the daemon's: what each request is handled by.
    let handlers: ControlHandlers
    let logger: Logger
    /// Its monotonic time drives the idle timeout.
    let clock: any WallClock
    let alarmListLines = AlarmListLines()
    let operations: Set<String>

    private struct Listening {
        var listener: Int32
        var waker: EventSignal
        var loopFinished: Completion
        var device: UInt64
        var inode: UInt64
    }

    private struct State {
        var listening: Listening?
        var started = false
        var sessions: [Int: (session: ControlSession, task: Task<Void, Never>)] = [:]
    }

    private let state = Mutex(State())
    let stopRequested = Atomic<Bool>(false)

    /// A server for `runtime` that also serves the daemon's `handlers`; nothing happens until
    /// ``start()``. A handler for one of the protocol's own operations is ignored; `clock` times
    /// idle connections.
    public init(
        configuration: Configuration, runtime: AlarmRuntime, handlers: ControlHandlers = .init(), logger: Logger,
        clock: any WallClock = SystemWallClock()
    ) {
        self.configuration = configuration
        self.runtime = runtime
        self.clock = clock
        self.handlers = handlers.merging(ControlSession.builtIns)
        self.logger = logger
        self.operations = self.handlers.operations
    }

    /// Binds the socket (mode 0660, the configured group), listens, and starts the I/O thread.
    /// Clients can connect once it returns. A server starts once.
    ///
    /// - Throws: ``ControlSocketError``: the path is not a socket, another daemon listens there,
    ///   or a call failed (bind, chmod, chown, listen). Nothing is left behind then.
    public func start() throws(ControlSocketError) {
        let path = configuration.socketPath
        try state.withLock { state throws(ControlSocketError) in
            guard !state.started else { throw ControlSocketError("start", path: path, errno: EALREADY) }
            try Self.removeStaleSocket(at: path)
            let listener = alarmd_unix_bind(path)
            guard listener >= 0 else { throw ControlSocketError("bind", path: path, errno: -listener) }
            var listening: Listening?
            defer {
                if listening == nil {
                    UnixSocket.close(listener)
                    unlink(path)
                }
            }
            // Before listen(): nobody can connect while the file still has the umask's mode.
            guard chmod(path, 0o660) == 0 else { throw ControlSocketError("chmod 0660", path: path, errno: errno) }
            if let group = configuration.socketGroupID, chown(path, UInt32.max, group) != 0 {
                throw ControlSocketError("chown to group \(group)", path: path, errno: errno)
            }
            guard listen(listener, 64) == 0 else { throw ControlSocketError("listen", path: path, errno: errno) }
            guard case .socket(let device, let inode) = try SocketFile(at: path) else {
                throw ControlSocketError("stat", path: path, errno: ENOENT)
            }
            let waker = try EventSignal.wakingPoll()
            let finished = Completion()
            try ControlThread.start { [self] in
                ServerLoop(server: self, listener: listener, waker: waker).run()
                finished.complete()
            }
            listening = Listening(listener: listener, waker: waker, loopFinished: finished, device: device, inode: inode)
            state.listening = listening
            state.started = true
        }
        if configuration.administrators.groupID == nil {
            logger.notice("Control socket has no administrators' group; only root administers", metadata: ["control.socket": "\(path)"])
        }
        logger.info("Control socket listening", metadata: ["control.socket": "\(path)"])
    }

    /// Closes every connection, ends their tasks (and subscriptions), and removes the socket
    /// file if it is still the one this server created. Harmless if never started or repeated.
    public func stop() async {
        guard let listening = state.withLock({ state -> Listening? in
            defer { state.listening = nil }
            return state.listening
        }) else { return }
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        listening.waker.signal()
        await listening.loopFinished.wait()
        let sessions = state.withLock { state in
            defer { state.sessions = [:] }
            return state.sessions.values
        }
        for (session, task) in sessions {
            session.close()
            await task.value
        }
        if case .socket(let device, let inode)? = try? SocketFile(at: configuration.socketPath),
            device == listening.device, inode == listening.inode
        {
            unlink(configuration.socketPath)
        }
        logger.info("Control socket closed", metadata: ["control.socket": "\(configuration.socketPath)"])
    }

    /// Makes the I/O thread look at the clock again now, as after a manual clock moved.
    func wake() {
        state.withLock { $0.listening?.waker }?.signal()
    }

    // MARK: - For the I/O thread

    /// Starts the task serving a new connection.
    func open(_ connection: ControlConnection) -> ControlSession {
        let session = ControlSession(connection: connection, server: self)
        state.withLock { state in
            let task = Task { [weak self] in
                await session.run()
                self?.sessionEnded(connection.id)
            }
            state.sessions[connection.id] = (session, task)
        }
        return session
    }

    private func sessionEnded(_ id: Int) {
        state.withLock { _ = $0.sessions.removeValue(forKey: id) }
    }

    /// Removes a socket nobody listens on; refuses to touch anything else at `path`.
    private static func removeStaleSocket(at path: String) throws(ControlSocketError) {
        switch try SocketFile(at: path) {
        case .missing:
            return
        case .socket:
            let probe = alarmd_unix_connect(path)
            if probe >= 0 {
                UnixSocket.close(probe)
                throw ControlSocketError("bind (another daemon listens there)", path: path, errno: EADDRINUSE)
            }
            guard unlink(path) == 0 || errno == ENOENT else { throw ControlSocketError("unlink stale socket", path: path, errno: errno) }
        case .other:
            throw ControlSocketError("bind (not a socket; left alone)", path: path, errno: EEXIST)
        }
    }
}

/// One request, for a handler the daemon registered: who asks, and the request (its id for a
/// ``ControlRequestError``), whose parameters the handler gets already decoded.
public struct ControlCall: Sendable {
    public var peer: ControlPeer
    public var request: ControlRequest
}
