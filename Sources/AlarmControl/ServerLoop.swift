import AlarmProtocol
import CUnixSocket
import Glibc
import LinuxSupport
import Logging

/// The server's I/O thread: `poll()` over the listening socket, every connection and a waker.
///
/// Confined to its thread (created there). It reads and splits lines, parses each request's
/// envelope and hands it to the connection's session, writes queued output, closes connections
/// that ended, overflowed, sent a line too large or stayed idle, and then accepts (refusing beyond
/// the client limit). It never waits for the engine: sessions answer on their own time and wake it.
final class ServerLoop {
    private final class Client {
        let fd: Int32
        let connection: ControlConnection
        let session: ControlSession
        var decoder = ControlLineDecoder(maximumLineLength: ControlProtocol.maximumRequestSize)
        /// The peer shut down its side: it may still wait for the answers to what it sent.
        var peerDone = false

        init(fd: Int32, connection: ControlConnection, session: ControlSession) {
            self.fd = fd
            self.connection = connection
            self.session = session
        }
    }

    private let server: ControlServer
    private let listener: Int32
    private let waker: EventSignal
    private var clients: [Int32: Client] = [:]
    /// Per uid, when its last refusal was logged and how many have gone unlogged since: a client
    /// that reconnects in a loop is logged once a minute, not filling the journal.
    private var refusalsLogged: [UInt32: (at: Duration, unlogged: Int)] = [:]
    private static let refusalLogInterval: Duration = .seconds(60)
    private var nextConnectionID = 0
    /// Accepting pauses briefly when the process is out of descriptors, instead of spinning.
    private var acceptPausedUntil: Duration?
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    private var configuration: ControlServer.Configuration { server.configuration }
    private var logger: Logger { server.logger }

    init(server: ControlServer, listener: Int32, waker: EventSignal) {
        self.server = server
        self.listener = listener
        self.waker = waker
    }

    func run() {
        while !server.stopRequested.load(ordering: .sequentiallyConsistent) {
            let order = Array(clients.values)
            var fds = [pollfd(fd: waker.descriptor, events: Int16(POLLIN), revents: 0)]
            let acceptPaused = acceptPausedUntil.map { server.clock.monotonicNow < $0 } ?? false
            fds.append(pollfd(fd: acceptPaused ? -1 : listener, events: Int16(POLLIN), revents: 0))
            for client in order {
                var events = client.peerDone ? Int16(0) : Int16(POLLIN)
                if client.connection.hasOutput { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: client.fd, events: events, revents: 0))
            }
            let timeout = pollTimeout(acceptPaused: acceptPaused)
            let ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeout) }
            if ready < 0 {
                if errno != EINTR { logger.warning("Control socket poll failed", metadata: ["control.errno": "\(errno)"]) }
                continue
            }
            if fds[0].revents != 0 { waker.drain() }
            if server.stopRequested.load(ordering: .sequentiallyConsistent) { break }
            for (index, client) in order.enumerated() where fds[index + 2].revents != 0 {
                receive(client, events: fds[index + 2].revents)
            }
            for client in Array(clients.values) {
                if let reason = client.connection.flush() {
                    close(client, reason)
                } else if client.peerDone, client.connection.isQuiescent {
                    close(client, .peerClosed)
                }
            }
            closeIdleClients()
            // After the closes: a client that left in this wake-up frees its slot for one that
            // arrived in it, which would otherwise be refused as busy with fewer than the limit open.
            if fds[1].revents & Int16(POLLIN) != 0 { acceptAll() }
        }
        for client in Array(clients.values) { close(client, .serverStopping) }
        UnixSocket.close(listener)
    }

    // MARK: - Accepting

    private func acceptAll() {
        while true {
            let fd = alarmd_unix_accept(listener)
            if fd < 0 {
                let error = -fd
                if error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM {
                    logger.warning("Control socket cannot accept: out of resources", metadata: ["control.errno": "\(error)"])
                    acceptPausedUntil = server.clock.monotonicNow + .milliseconds(100)
                }
                return
            }
            guard let credentials = UnixSocket.peerCredentials(fd) else {
                UnixSocket.close(fd)
                continue
            }
            // Looked up for each connection: a user taken out of the admin group is not one from
            // the next connection on, however long their earlier ones stay open.
            let isAdministrator = configuration.administrators.includes(uid: credentials.uid, gid: credentials.gid)
            if let refusal = refusal(uid: credentials.uid, isAdministrator: isAdministrator) {
                refuse(fd, refusal, uid: credentials.uid)
                continue
            }
            nextConnectionID += 1
            let peer = ControlPeer(uid: credentials.uid, gid: credentials.gid, pid: credentials.pid, isAdministrator: isAdministrator)
            let connection = ControlConnection(
                id: nextConnectionID, fd: fd, peer: peer, outputLimit: configuration.outputLimit, waker: waker, clock: server.clock)
            let session = server.open(connection)
            clients[fd] = Client(fd: fd, connection: connection, session: session)
            logger.debug("Control connection opened", metadata: metadata(connection))
        }
    }

    /// Why a new connection of `uid` cannot be served, if it cannot: root and the administrators
    /// have slots of their own, so ordinary users cannot lock them out; each ordinary user may
    /// hold a share of the others'.
    private func refusal(uid: UInt32, isAdministrator: Bool) -> ControlErrorBody? {
        let peers = clients.values.map(\.connection.peer)
        if isAdministrator {
            let limit = configuration.maximumAdministratorClients
            guard peers.count(where: \.isAdministrator) < limit else {
                return ControlErrorBody(code: .busy, message: "too many administrators' connections (\(limit)); try again later")
            }
            return nil
        }
        let perUser = configuration.maximumClientsPerUser
        guard peers.count(where: { !$0.isAdministrator && $0.uid == uid }) < perUser else {
            return ControlErrorBody(
                code: .busy, message: "uid \(uid) already holds \(perUser) connections, the most one user may; close one first")
        }
        let limit = configuration.maximumClients
        guard peers.count(where: { !$0.isAdministrator }) < limit else {
            return ControlErrorBody(code: .busy, message: "too many clients (\(limit)); try again later")
        }
        return nil
    }

    /// Tells a client it cannot be served (best effort: one non-blocking send) and closes it.
    private func refuse(_ fd: Int32, _ error: ControlErrorBody, uid: UInt32) {
        if let line = ControlProtocol.line(FailureMessage(id: nil, error: error)) {
            _ = line.withUnsafeBytes { UnixSocket.send(fd, $0) }
        }
        UnixSocket.close(fd)
        let now = server.clock.monotonicNow
        if let last = refusalsLogged[uid], now - last.at < Self.refusalLogInterval {
            refusalsLogged[uid]?.unlogged += 1
            return
        }
        let unlogged = refusalsLogged[uid]?.unlogged ?? 0
        refusalsLogged = refusalsLogged.filter { now - $0.value.at < Self.refusalLogInterval }
        refusalsLogged[uid] = (now, 0)
        logger.warning("Control connection refused", metadata: [
            "control.uid": "\(uid)", "control.error": "\(error.code)", "control.reason": "\(error.message)",
            "control.refusedUnlogged": "\(unlogged)",
        ])
    }

    // MARK: - Reading

    private func receive(_ client: Client, events: Int16) {
        if client.peerDone {
            // POLLHUP: both directions are shut, nobody is left to answer.
            if events & Int16(POLLHUP | POLLERR) != 0 { close(client, .peerClosed) }
            return
        }
        // A few reads per wake-up, so one busy client cannot starve the others.
        for _ in 0..<4 {
            let transfer = readBuffer.withUnsafeMutableBytes { UnixSocket.receive(client.fd, into: $0) }
            switch transfer {
            case .done(0):
                client.peerDone = true
                return
            case .done(let count):
                guard !client.connection.isClosing else { continue }
                for output in client.decoder.feed(readBuffer[0..<count]) {
                    switch output {
                    case .line(let line):
                        handle(line, from: client)
                    case .tooLarge:
                        reply(client, id: nil, ControlErrorBody(
                            code: .tooLarge, message: "a line is longer than \(ControlProtocol.maximumRequestSize) bytes; closing"))
                        client.connection.closeAfterFlush(.tooLarge)
                    }
                }
            case .wouldBlock:
                return
            case .failed:
                return close(client, .socketError)
            }
        }
    }

    private func handle(_ line: [UInt8], from client: Client) {
        switch ControlRequest.decode(line: line, operations: server.operations) {
        case .failure(let error):
            logger.debug("Control request refused", metadata: metadata(client.connection).merging([
                "control.error": "\(error.code)", "control.reason": "\(error.message)",
            ]) { $1 })
            reply(client, id: error.id, ControlErrorBody(code: error.code, message: error.message))
        case .success(let request):
            guard client.connection.admitRequest(limit: configuration.maximumPendingRequests, now: server.clock.monotonicNow) else {
                reply(client, id: request.id, ControlErrorBody(
                    code: .busy, message: "more than \(configuration.maximumPendingRequests) requests in flight; wait for replies"))
                return
            }
            client.session.receive(request)
        }
    }

    private func reply(_ client: Client, id: Int64?, _ error: ControlErrorBody) {
        if let line = ControlProtocol.line(FailureMessage(id: id, error: error)) { client.connection.send(line) }
    }

    // MARK: - Closing

    private func close(_ client: Client, _ reason: ControlConnection.CloseReason) {
        guard clients.removeValue(forKey: client.fd) != nil else { return }
        client.connection.markClosed()
        UnixSocket.close(client.fd)
        client.session.close()
        let details = metadata(client.connection).merging(["control.reason": "\(reason.rawValue)"]) { $1 }
        switch reason {
        case .outputOverflow, .tooLarge, .unencodableAnswer:
            logger.warning("Control connection closed", metadata: details)
        default:
            logger.debug("Control connection closed", metadata: details)
        }
    }

    private func closeIdleClients() {
        let now = server.clock.monotonicNow
        for client in Array(clients.values) {
            if let idle = client.connection.idleDeadline(after: configuration.idleTimeout), idle.deadline <= now {
                close(client, idle.reason)
            }
        }
    }

    /// Milliseconds until the next idle deadline or the end of an accept pause; -1 for none.
    private func pollTimeout(acceptPaused: Bool) -> Int32 {
        var earliest = acceptPaused ? acceptPausedUntil : nil
        for client in clients.values {
            if let deadline = client.connection.idleDeadline(after: configuration.idleTimeout)?.deadline {
                earliest = min(earliest ?? deadline, deadline)
            }
        }
        guard let earliest else { return -1 }
        let remaining = earliest - server.clock.monotonicNow
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        // Rounded up, so the loop does not wake a hair early and poll again with 0.
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    private func metadata(_ connection: ControlConnection) -> Logger.Metadata {
        [
            "control.connection": "\(connection.id)", "control.uid": "\(connection.peer.uid)",
            "control.pid": "\(connection.peer.pid)",
        ]
    }
}
