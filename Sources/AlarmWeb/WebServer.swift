import AlarmTime
import FlyingSocks
import FoundationEssentials
import Glibc
import Logging

/// The page served over HTTP/1.1 to the home network, on sockets and the epoll socket pool of
/// FlyingSocks.
///
/// The HTTP layer is our own, small and strict: a head read in one pass within size, count and
/// time limits (``HTTPHeadParser``), bodies framed strictly and refused before they are read when
/// too large (``HTTPRequestHead/bodyFraming(maximumBody:)``, ``ChunkedBodyDecoder``), `Host`
/// checked first (``ClockHostNames``), a cap on connections that closes the oldest idle ones
/// (``ConnectionTable``). FlyingFox's own HTTP server (0.27.1) was measured to fail each of these:
/// its line reader compares `suffix` of the whole line read so far for every byte, which picks
/// `Sequence.suffix` and walks the line each time (a 128 KiB header cost 7.6 s of CPU); it has no
/// limit on a header's size or count and no read deadline; its decoder and connection types are
/// internal, so none of that can be configured or wrapped; and it answers a malformed chunked body
/// with 500 and takes the last of two `Content-Length`s. FlyingSocks, the same package's socket
/// layer, still pays: sockets, addresses and non-blocking reads and writes over a pool.
///
/// ```swift
/// let server = try WebServer(app: app, configuration: .init(listen: ":8080", hosts: try ClockHostNames(configured: [])), logger: logger)
/// try await server.run()   // until cancelled; throws if serving becomes impossible
/// ```
public final class WebServer: Sendable {
    public struct Configuration: Sendable {
        /// `HOST:PORT` (an IPv4 address), `[IPV6]:PORT`, or `:PORT` for every address.
        public var listen: String
        /// The names requests may give as `Host`.
        public var hosts: ClockHostNames
        /// Open connections at most (clamped below the file limit, see ``connectionCapacity(requested:)``).
        public var maximumConnections = 512
        public var timeouts = HTTPTimeouts()
        var limits = HTTPLimits()

        public init(listen: String, hosts: ClockHostNames, maximumConnections: Int = 512) {
            self.listen = listen
            self.hosts = hosts
            self.maximumConnections = maximumConnections
        }
    }

    /// File descriptors kept back from connections: alarmd's socket, the pool's, the timer's,
    /// the page's files and pairings, the log.
    public static let reservedDescriptors = 64

    private let listener: Socket
    private let pool: SocketPool<ePoll>
    private let table: ConnectionTable
    private let configuration: Configuration
    private let respond: @Sendable (WebRequest) async -> WebResponse
    private let bodyLimit: @Sendable (WebRequest) -> Int
    private let logger: Logger
    private let clock: any WallClock

    /// Listens on `configuration.listen` at once (so the port is known and a busy address fails
    /// here); ``run()`` serves.
    /// - Throws: ``WebAddressError`` for an address that cannot be parsed, ``WebListenError`` for
    ///   one that cannot be listened on (in use by another program, not this machine's).
    public convenience init(app: WebApp, configuration: Configuration, logger: Logger, clock: any WallClock = SystemWallClock()) throws {
        try self.init(configuration: configuration, logger: logger, clock: clock, bodyLimit: { app.bodyLimit(for: $0) }) {
            await app.respond(to: $0)
        }
    }

    /// - Parameter bodyLimit: the largest body a request may have, from its head (an empty
    ///   body): ``HTTPLimits/maximumBody`` unless the page allows more for that request.
    init(
        configuration: Configuration, logger: Logger, clock: any WallClock,
        bodyLimit: (@Sendable (WebRequest) -> Int)? = nil,
        respond: @escaping @Sendable (WebRequest) async -> WebResponse
    ) throws {
        let address = try Self.address(configuration.listen)
        let listener = try Socket(domain: Int32(type(of: address).family), type: .stream)
        do {
            try listener.setValue(true, for: .localAddressReuse)
            try listener.bind(to: address)
            try listener.listen()
            try listener.setFlags(.nonBlocking)
        } catch SocketError.failed(let type, let number, let message) {
            try? listener.close()
            throw WebListenError(address: configuration.listen, operation: type, errno: number, message: message)
        } catch {
            try? listener.close()
            throw error
        }
        self.listener = listener
        self.configuration = configuration
        self.respond = respond
        let maximumBody = configuration.limits.maximumBody
        self.bodyLimit = bodyLimit ?? { _ in maximumBody }
        self.logger = logger
        self.clock = clock
        // Level-triggered: FlyingSocks (0.27.1) matches an event with no read or write in it (a
        // listening socket shut down reports only EPOLLHUP) to its waiters through a copy of its
        // registrations taken when `epoll_wait` began, which may predate the waiter's. Edge-
        // triggered, an event dropped that way never came again and the server hung; level-
        // triggered, the next `epoll_wait` reports it again.
        pool = .ePoll(triggering: .level, maxEvents: 64)
        table = ConnectionTable(
            capacity: Self.connectionCapacity(requested: configuration.maximumConnections),
            timeouts: configuration.timeouts, clock: clock)
    }

    /// The connections allowed open: `requested`, but at most the soft file limit less
    /// ``reservedDescriptors``, so that accepting never runs out of descriptors; at least 8.
    public static func connectionCapacity(requested: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return max(8, requested) }
        return max(8, min(requested, Int(clamping: limit.rlim_cur) - reservedDescriptors))
    }

    /// The connections allowed open at once.
    public var capacity: Int { table.capacity }

    /// The port the server listens on (useful with port 0).
    public var port: UInt16? {
        switch try? listener.sockname() {
        case .ip4(_, let port)?, .ip6(_, let port)?: port
        default: nil
        }
    }

    /// Serves until cancelled, then closes every connection. Once only.
    ///
    /// - Throws: `CancellationError` when cancelled; otherwise the reason serving stopped for
    ///   good (the listening socket failing, the socket pool failing). The server loop
    ///   never ends quietly: a caller that sees it end should exit, so that systemd restarts it.
    public func run() async throws {
        defer {
            table.stop()
            try? listener.close()
        }
        try await pool.prepare()
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { [pool] in
                try await pool.run()
                throw WebServerError(description: "the socket pool stopped")
            }
            var outOfDescriptors = false
            while true {
                try Task.checkCancellation()
                let accepted: (file: Socket.FileDescriptor, addr: sockaddr_storage)
                do {
                    accepted = try listener.accept()
                    outOfDescriptors = false
                } catch SocketError.blocked {
                    try await pool.suspendSocket(listener, untilReadyFor: .connection)
                    continue
                } catch SocketError.failed(_, let code, _) where Self.outOfResources.contains(code) {
                    if !outOfDescriptors {
                        outOfDescriptors = true
                        logger.warning("Out of file descriptors; closing idle connections", metadata: [
                            "connections.open": "\(table.openCount)", "error": "\(String(cString: strerror(code)))",
                        ])
                    }
                    // A connection closed for room gives its descriptor back only once its task has
                    // ended: wait for that, rather than closing every idle connection in a row.
                    _ = table.closeOldestIdle()
                    await table.waitForRoom(atMost: 1)
                    continue
                } catch SocketError.failed(_, let code, _) where Self.transient.contains(code) {
                    continue
                }
                guard let connection = admit(accepted.file, address: accepted.addr) else { continue }
                group.addTask { await connection.serve() }
                // A flood of connections keeps accept succeeding: let the connections' work in
                // between, so that a phone's request is read while the flood is taken in.
                await Task.yield()
            }
        }
    }

    /// The connection of an accepted socket, or `nil` (the socket closed) when every
    /// connection is busy or the pool cannot take it.
    private func admit(_ file: Socket.FileDescriptor, address: sockaddr_storage) -> HTTPConnection? {
        let socket = Socket(file: file)
        let peer = (try? Socket.makeAddress(from: address)).map(Self.text(of:)) ?? "unknown"
        guard let id = table.admit(descriptor: file.rawValue, peer: peer) else {
            logger.debug("Connection refused: every connection is busy", metadata: ["peer": "\(peer)"])
            try? socket.close()
            return nil
        }
        let asynchronous: AsyncSocket
        do {
            asynchronous = try AsyncSocket(socket: socket, pool: pool)
        } catch {
            table.remove(id)
            try? socket.close()
            return nil
        }
        let local: (address: String, port: UInt16)? = switch try? socket.sockname() {
        case .ip4(let address, let port)?, .ip6(let address, let port)?: (Self.unmapped(address), port)
        default: nil
        }
        return HTTPConnection(
            socket: asynchronous, id: id, table: table, peer: peer, local: local, hosts: configuration.hosts,
            limits: configuration.limits, bodyLimit: bodyLimit, respond: respond)
    }

    /// accept(2)'s errors that mean the process or the system is out of something a closed
    /// connection gives back.
    private static let outOfResources: Set<Int32> = [EMFILE, ENFILE, ENOBUFS, ENOMEM]
    /// accept(2)'s errors about the one connection being accepted (Linux passes pending
    /// network errors of a new connection to accept): the next one is taken.
    private static let transient: Set<Int32> = [
        EINTR, ECONNABORTED, EPROTO, EPERM, ENETDOWN, ENOPROTOOPT, EHOSTDOWN, ENONET, EHOSTUNREACH, EOPNOTSUPP, ENETUNREACH,
    ]

    /// A peer's address as text; an IPv4 client of an IPv6 socket as IPv4.
    static func text(of address: Socket.Address) -> String {
        switch address {
        case .ip4(let text, _): text
        case .ip6(let text, _): unmapped(text)
        case .unix(let path): path
        }
    }

    /// `::ffff:192.0.2.1` as `192.0.2.1`.
    static func unmapped(_ address: String) -> String {
        address.lowercased().hasPrefix("::ffff:") && address.contains(".") ? String(address.dropFirst(7)) : address
    }

    static func address(_ text: String) throws -> any SocketAddress {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw WebAddressError(text: text)
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
            return try sockaddr_in6.inet6(ip6: host, port: port)
        }
        if host.isEmpty { return sockaddr_in6.inet6(port: port) }
        if host == "localhost" { host = "127.0.0.1" }
        return try sockaddr_in.inet(ip4: host, port: port)
    }
}

public struct WebAddressError: Error, CustomStringConvertible {
    var text: String
    public var description: String {
        "invalid listen address \"\(text)\": expected HOST:PORT (an IPv4 address), [IPV6]:PORT or :PORT"
    }
}

/// Why the page server cannot listen where it was asked to, in one line a person acts on:
/// `127.0.0.1:8080 is in use by another program`.
public struct WebListenError: Error, CustomStringConvertible {
    public var address: String
    /// The socket call that failed (`Bind`, `Listen`...) and its errno.
    public var operation: String
    public var errno: Int32
    public var message: String

    public var isAddressInUse: Bool { errno == EADDRINUSE }

    public var description: String {
        switch errno {
        case EADDRINUSE: "\(address) is in use by another program (another alarm-web or simulator?)"
        case EADDRNOTAVAIL: "\(address) is not an address of this machine"
        case EACCES: "\(address): a port below 1024 needs root"
        default: "cannot listen on \(address): \(message) (\(operation.lowercased()), errno \(errno))"
        }
    }
}

/// Why the page server stopped serving.
public struct WebServerError: Error, CustomStringConvertible {
    public var description: String
}
