import AlarmKitCore
import AlarmProtocol
import FoundationEssentials
import Glibc
import LinuxSupport
import Synchronization

/// One client connection to the daemon: requests correlated with responses by id, and events
/// routed to subscriptions by number.
///
/// A thread of its own polls the non-blocking socket and a waker: it writes queued requests,
/// splits what arrives into lines and dispatches each. When the connection ends, every request
/// still waiting fails with ``AlarmOperationError/serviceUnavailable(_:)`` and `onClose` runs.
final class ControlChannel: Sendable {
    /// Receives the lines of one subscription's events, on the channel's thread.
    typealias Sink = @Sendable ([UInt8]) -> Void

    private struct State {
        var output = OutputBuffer(limit: 16 * ControlProtocol.maximumRequestSize)
        var waiting: [Int64: CheckedContinuation<[UInt8], any Error>] = [:]
        /// Subscribe requests in flight: their sink is routed when the response arrives, on the
        /// channel's thread, before any event of the subscription can be read.
        var pendingRoutes: [Int64: Sink] = [:]
        var routes: [Int: Sink] = [:]
        var nextID: Int64 = 0
        var closing = false
        var closed = false
        /// Why the connection ended, when known: the daemon refused us (`busy`), or it sent a line
        /// that is not strict JSON.
        var endReason: String?
    }

    /// Tells this connection from earlier ones of the same client.
    let serial: Int
    private let fd: Int32
    private let waker: EventSignal
    private let state = Mutex(State())
    private let onClose: Mutex<(@Sendable () -> Void)?>

    /// Starts serving `fd` (connected, non-blocking), which the channel owns from now on.
    init(fd: Int32, serial: Int, onClose: @escaping @Sendable () -> Void) throws(ControlSocketError) {
        self.fd = fd
        self.serial = serial
        do {
            waker = try EventSignal.wakingPoll()
        } catch {
            UnixSocket.close(fd)
            throw error
        }
        self.onClose = Mutex(onClose)
        do {
            try ControlThread.start { [self] in serve() }
        } catch {
            UnixSocket.close(fd)
            throw error
        }
    }

    var isClosed: Bool { state.withLock { $0.closed || $0.closing } }

    /// Closes the connection; waiting requests fail.
    func close() {
        state.withLock { $0.closing = true }
        waker.signal()
    }

    // MARK: - Requests

    /// Sends a request and returns the response's line.
    ///
    /// - Parameter route: for a subscribe request, where the subscription's events go.
    /// - Throws: ``AlarmOperationError/serviceUnavailable(_:)`` if the connection is or becomes
    ///   closed before the response, `CancellationError` if the task is cancelled meanwhile.
    func request<Parameters: Encodable>(_ operation: String, _ parameters: Parameters, route: Sink? = nil) async throws -> [UInt8] {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let line = try Self.requestLine(id: id, operation, parameters)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let failure: (any Error)? = state.withLock { state in
                    if state.closed || state.closing { return Self.lostError(state.endReason, sent: false) }
                    if Task.isCancelled { return CancellationError() }
                    guard state.output.append(line) else {
                        return AlarmOperationError.serviceUnavailable("too many requests waiting to be sent to alarmd")
                    }
                    state.waiting[id] = continuation
                    if let route { state.pendingRoutes[id] = route }
                    return nil
                }
                if let failure {
                    continuation.resume(throwing: failure)
                } else {
                    waker.signal()
                }
            }
        } onCancel: {
            let continuation = state.withLock { state in
                state.pendingRoutes[id] = nil
                return state.waiting.removeValue(forKey: id)
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// A request's line, encoded and checked against the daemon's limit: alarmd would refuse a
    /// longer one and close the connection, so it is refused here and the connection kept.
    static func requestLine<Parameters: Encodable>(id: Int64, _ operation: String, _ parameters: Parameters) throws -> [UInt8] {
        guard let line = ControlProtocol.line(RequestMessage(id: id, op: operation, params: parameters)) else {
            throw ControlError(.malformed, "the parameters of \(operation) cannot be encoded")
        }
        guard line.count <= ControlProtocol.maximumRequestSize + 1 else {
            throw ControlError(.tooLarge, "the \(operation) request is \(line.count - 1) bytes; alarmd accepts at most \(ControlProtocol.maximumRequestSize)")
        }
        return line
    }

    /// Forgets a subscription's route (its events are dropped from now on).
    func removeRoute(_ number: Int) {
        state.withLock { _ = $0.routes.removeValue(forKey: number) }
    }

    private static func lostError(_ endReason: String?, sent: Bool) -> AlarmOperationError {
        if let endReason { return .serviceUnavailable(endReason) }
        return .serviceUnavailable(sent
            ? "the connection to alarmd closed before it answered; the request may or may not have taken effect"
            : "the connection to alarmd is closed")
    }

    // MARK: - The channel's thread

    private func serve() {
        var decoder = ControlLineDecoder(maximumLineLength: ControlProtocol.maximumResponseSize)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        serving: while true {
            let wantsOutput = state.withLock { !$0.output.isEmpty }
            var fds = [
                pollfd(fd: waker.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: fd, events: Int16(POLLIN) | (wantsOutput ? Int16(POLLOUT) : 0), revents: 0),
            ]
            let ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), -1) }
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if fds[0].revents != 0 { waker.drain() }
            if state.withLock({ $0.closing }) { break }
            if fds[1].revents != 0 {
                for _ in 0..<4 {
                    let transfer = buffer.withUnsafeMutableBytes { UnixSocket.receive(fd, into: $0) }
                    guard case .done(let count) = transfer else {
                        if transfer == .wouldBlock { break }
                        break serving
                    }
                    if count == 0 { break serving }
                    for output in decoder.feed(buffer[0..<count]) {
                        guard case .line(let line) = output, dispatch(line) else { break serving }
                    }
                }
            }
            let failed = state.withLock { $0.output.write(to: fd) != nil }
            if failed { break }
        }
        finish()
    }

    /// Routes one line from the daemon: an event to its subscription, a response to its request.
    /// Returns `false` for a line that is not strict JSON: the daemon never sends one, so the
    /// connection can no longer be trusted and is ended.
    private func dispatch(_ line: [UInt8]) -> Bool {
        let members: [String: Range<Int>]
        switch StrictJSON.topLevelMembers(line) {
        case .success(let found): members = found
        case .failure(let violation):
            state.withLock { $0.endReason = "alarmd sent a line that is not valid JSON (\(violation)); the connection was closed" }
            return false
        }
        // Routed by the members' text alone: the line is decoded once, by whoever it is for (a
        // list of a thousand alarms takes JSONDecoder milliseconds).
        func text(_ name: String) -> String? { members[name].map { String(decoding: line[$0], as: UTF8.self) } }
        if let event = text("event"), event != "null", let number = text("subscription").flatMap({ Int($0) }) {
            state.withLock { $0.routes[number] }?(line)
            return true
        }
        let ok = text("ok") == "true"
        guard let id = text("id").flatMap({ Int64($0) }) else {
            // A refusal before any request (`busy`): remembered for the error requests get.
            if !ok, let range = members["error"],
                let error = try? ControlProtocol.makeDecoder().decode(ControlErrorBody.self, from: Data(line[range]))
            {
                state.withLock { $0.endReason = "alarmd refused the connection: \(error.message)" }
            }
            return true
        }
        let continuation = state.withLock { state -> CheckedContinuation<[UInt8], any Error>? in
            let route = state.pendingRoutes.removeValue(forKey: id)
            if let route, ok, let range = members["result"],
                let subscription = try? ControlProtocol.makeDecoder().decode(ControlSubscription.self, from: Data(line[range]))
            {
                state.routes[subscription.subscription] = route
            }
            return state.waiting.removeValue(forKey: id)
        }
        continuation?.resume(returning: line)
        return true
    }

    private func finish() {
        UnixSocket.close(fd)
        let (waiting, endReason) = state.withLock { state in
            state.closed = true
            state.routes = [:]
            state.pendingRoutes = [:]
            defer { state.waiting = [:] }
            return (Array(state.waiting.values), state.endReason)
        }
        let error = Self.lostError(endReason, sent: true)
        waiting.forEach { $0.resume(throwing: error) }
        let onClose = self.onClose.withLock { handler in
            defer { handler = nil }
            return handler
        }
        onClose?()
    }
}
