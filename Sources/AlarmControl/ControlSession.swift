import AlarmEngine
import AlarmKitCore
import AlarmProtocol
import Logging
import Synchronization

/// Serves one connection: answers its requests one at a time, in the order they arrived, and
/// forwards its subscriptions' updates.
///
/// A request that must wait for a person (`requestAuthorization`, or the `schedule` of a client
/// whose authorization is not determined) is parked on a task of its own, so the connection's
/// other requests go on; a parked `schedule` rejoins the queue once the decision is in.
final class ControlSession: Sendable {
    enum Input: Sendable {
        case request(ControlRequest)
        /// A `schedule` whose authorization prompt has been answered.
        case decided(ControlRequest)
    }

    private struct State {
        var subscriptions: [Int: Task<Void, Never>] = [:]
        var nextSubscription = 0
        var parked: [Int: Task<Void, Never>] = [:]
        var nextParked = 0
        var closed = false
        /// An administrator's authorization has been recorded as `.authorized`.
        var administratorAuthorized = false
        /// The app the client named in `hello`.
        var app: String?
    }

    let connection: ControlConnection
    let server: ControlServer
    private let inputs: AsyncStream<Input>
    private let continuation: AsyncStream<Input>.Continuation
    private let state = Mutex(State())
    /// This connection as the intent mailbox knows it: what it takes is released when it closes.
    let intentTaker = IntentTaker()

    var peer: ControlPeer { connection.peer }

    /// The app the client named in `hello`, if any.
    var app: String? {
        get { state.withLock { $0.app } }
        set { state.withLock { $0.app = newValue } }
    }

    /// Whom the client's intents are for.
    var intentRecipient: IntentRecipient { IntentRecipient(owner: peer.client, app: app) }
    var runtime: AlarmRuntime { server.runtime }

    init(connection: ControlConnection, server: ControlServer) {
        self.connection = connection
        self.server = server
        // Unbounded, but the I/O thread admits at most `maximumPendingRequests` at a time.
        (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
    }

    /// From the I/O thread: a request that parsed and was admitted.
    func receive(_ request: ControlRequest) {
        continuation.yield(.request(request))
    }

    /// The connection is gone: stop taking requests, end subscriptions and parked waits.
    func close() {
        continuation.finish()
        let tasks = state.withLock { state in
            state.closed = true
            defer {
                state.subscriptions = [:]
                state.parked = [:]
            }
            return Array(state.subscriptions.values) + Array(state.parked.values)
        }
        tasks.forEach { $0.cancel() }
        runtime.intents.release(takenBy: intentTaker)
    }

    /// Answers requests until the connection closes.
    func run() async {
        for await input in inputs {
            switch input {
            case .request(let request):
                await answer(request, decided: false)
            case .decided(let request):
                await answer(request, decided: true)
            }
        }
        close()
    }

    // MARK: - Answering

    private func answer(_ request: ControlRequest, decided: Bool) async {
        do {
            switch try await perform(request, decided: decided) {
            case .result(let result):
                await sendAnswer(result, to: request)
            case .encodedResult(let json):
                await sendEncodedResult(json, to: request)
            case .sent:
                break
            case .parked:
                return
            }
        } catch {
            send(error, to: request)
        }
        connection.requestFinished()
    }

    /// What handling a request came to.
    enum Outcome: Sendable {
        case result(any Encodable & Sendable)
        /// A result that is JSON already.
        case encodedResult([UInt8])
        /// The response is already queued (a subscription's, ahead of its first event).
        case sent
        /// A task of its own will answer.
        case parked
    }

    /// Queues a short result as one line, counted against the output bound as events are: for
    /// answers from tasks beside the queue (a subscription's, a prompt's), which must not wait
    /// for the socket.
    func send(_ result: any Encodable & Sendable, to request: ControlRequest) {
        if let line = Self.successLine(id: request.id, result: result) {
            connection.send(line)
        } else {
            send(ControlError(.serviceUnavailable, "the result of \(request.operation) could not be encoded"), to: request)
        }
    }

    func send(_ error: any Error, to request: ControlRequest) {
        let body: ControlErrorBody
        if let error = error as? ControlRequestError {
            body = ControlErrorBody(code: error.code, message: error.message)
        } else {
            body = ControlErrorBody(error)
        }
        server.logger.debug("Control request failed", metadata: [
            "control.connection": "\(connection.id)", "control.op": "\(request.operation)", "control.error": "\(body.code)",
        ])
        if let line = ControlProtocol.line(FailureMessage(id: request.id, error: body)) { connection.send(line) }
    }

    /// Generic, so that the result's own type (opened from the existential) is encoded.
    static func successLine<Result: Encodable>(id: Int64, result: Result) -> [UInt8]? {
        ControlProtocol.line(SuccessMessage(id: id, result: result))
    }

    // MARK: - Tasks on the side

    /// Runs `body` beside the queue; it answers `request` itself. Nothing runs once closed.
    func park(_ request: ControlRequest, _ body: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            guard !state.closed else { return }
            state.nextParked += 1
            let key = state.nextParked
            state.parked[key] = Task { [weak self] in
                await body()
                self?.state.withLock { _ = $0.parked.removeValue(forKey: key) }
            }
        }
    }

    /// Puts a request whose prompt was answered back in the queue.
    func requeue(_ request: ControlRequest) {
        continuation.yield(.decided(request))
    }

    /// Starts forwarding `stream` as events of a new subscription and returns its number, after
    /// `reply(number)` has queued the response; `nil` (and no reply) at the limit or once closed.
    func subscribe<Value: Encodable & Sendable>(
        _ stream: some AsyncSequence<Value, Never> & Sendable, event: String, reply: (Int) -> Void
    ) -> Int? {
        let number: Int? = state.withLock { state in
            guard !state.closed, state.subscriptions.count < server.configuration.maximumSubscriptions else { return nil }
            state.nextSubscription += 1
            return state.nextSubscription
        }
        guard let number else { return nil }
        reply(number)
        connection.subscriptionAdded()
        let connection = self.connection
        let task = Task {
            for await value in stream {
                guard let line = ControlProtocol.line(EventMessage(event: event, subscription: number, data: value)) else {
                    continue
                }
                connection.send(line)
            }
        }
        let added = state.withLock { state in
            guard !state.closed else { return false }
            state.subscriptions[number] = task
            return true
        }
        if !added { task.cancel() }
        return number
    }

    /// Ends a subscription; `false` if there is none by that number.
    func unsubscribe(_ number: Int) -> Bool {
        guard let task = state.withLock({ $0.subscriptions.removeValue(forKey: number) }) else { return false }
        task.cancel()
        connection.subscriptionRemoved()
        return true
    }

    /// Records an administrator as authorized, once per connection: root and the administrators'
    /// group are always authorized, and the engine must not prompt for them.
    func authorizeAdministrator() async throws {
        guard peer.isAdministrator, !state.withLock({ $0.administratorAuthorized }) else { return }
        if await runtime.authorizationState(for: peer.client) != .authorized {
            try await runtime.setAuthorization(.authorized, for: peer.client)
        }
        state.withLock { $0.administratorAuthorized = true }
    }
}
