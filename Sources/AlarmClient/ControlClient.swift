import AlarmKitCore
import AlarmModel
import AlarmProtocol
import FoundationEssentials
import LinuxSupport
import Synchronization

/// A connection to `alarmd`'s control socket with the whole protocol: the AlarmKit operations,
/// subscriptions that survive a daemon restart, and the administrators' operations.
///
/// ```swift
/// let client = ControlClient(path: "/run/alarmd/control.sock")
/// for entry in try await client.allAlarms() { print(entry.owner, entry.alarm.state) }
/// let status = try await client.status()                    // one of the daemon's own operations
/// ```
///
/// - It connects on first use and says `hello` first. Requests may run concurrently; each is
///   correlated with its response by id.
/// - A request in flight when the connection drops fails with
///   ``AlarmOperationError/serviceUnavailable(_:)``: it is never retried, since it may have
///   taken effect (a `schedule` retried could fail as `duplicateID`, a `countdown` could snooze
///   twice). The next request connects again.
/// - Streams (``alarmUpdates()``, ``authorizationUpdates()``) outlive connections: after a drop
///   the client reconnects with backoff (0.1 s doubling to 5 s by default) and subscribes again,
///   and each stream yields the fresh value. They end only with ``close()``.
public final class ControlClient: Sendable {
    public struct Connector: Sendable {
        /// The socket's path, for messages.
        public var path: String
        let open: @Sendable () throws(ControlSocketError) -> Int32

        /// A connector whose `open` returns a connected, non-blocking descriptor.
        package init(path: String, open: @escaping @Sendable () throws(ControlSocketError) -> Int32) {
            self.path = path
            self.open = open
        }

        /// Connects to the socket at `path` as this process.
        public static func unixSocket(path: String) -> Connector {
            Connector(path: path) { () throws(ControlSocketError) in try UnixSocket.connect(to: path) }
        }
    }

    /// The wait between reconnection attempts: from `lowerBound`, doubling, up to `upperBound`.
    public typealias Backoff = ClosedRange<Duration>

    private struct Subscription {
        var operation: String
        var sink: ControlChannel.Sink
        var finish: @Sendable () -> Void
        /// The serial number of the channel it is subscribed on, and its number there.
        var channel: Int?
        var number: Int?
    }

    private struct State {
        var channel: ControlChannel?
        var hello: ControlHello?
        var connecting: Task<ControlChannel, any Error>?
        var subscriptions: [Int: Subscription] = [:]
        var nextSubscription = 0
        var reconnecting: Task<Void, Never>?
        var closed = false
        var channelSerial = 0
        var lossWatchers: [Int: AsyncStream<Void>.Continuation] = [:]
    }

    public let connector: Connector
    /// The app this client says it is in `hello` (``ControlHelloParameters/app``): the alarms it
    /// schedules deliver their intents to this app's connections only. `nil` names none.
    public let app: String?
    private let backoff: Backoff
    private let state = Mutex(State())

    public init(connector: Connector, app: String? = nil, reconnectBackoff: Backoff = .milliseconds(100)...(.seconds(5))) {
        self.connector = connector
        self.app = app
        self.backoff = reconnectBackoff
    }

    public convenience init(path: String, app: String? = nil) {
        self.init(connector: .unixSocket(path: path), app: app)
    }

    deinit {
        let (channel, reconnecting) = state.withLock { ($0.channel, $0.reconnecting) }
        reconnecting?.cancel()
        channel?.close()
    }

    /// Closes the connection and ends every stream; requests fail from now on.
    public func close() {
        let (channel, reconnecting, connecting, subscriptions, watchers) = state.withLock { state in
            state.closed = true
            defer {
                state.channel = nil
                state.subscriptions = [:]
                state.lossWatchers = [:]
            }
            return (state.channel, state.reconnecting, state.connecting, Array(state.subscriptions.values), Array(state.lossWatchers.values))
        }
        reconnecting?.cancel()
        connecting?.cancel()
        channel?.close()
        subscriptions.forEach { $0.finish() }
        watchers.forEach { $0.finish() }
    }

    // MARK: - Requests

    /// What the daemon said in `hello` on the current connection (connecting if needed).
    public func hello() async throws -> ControlHello {
        _ = try await channel()
        guard let hello = state.withLock({ $0.hello }) else {
            throw AlarmOperationError.serviceUnavailable("the connection to alarmd is closed")
        }
        return hello
    }

    /// Any operation by name, with parameters and result as plain JSON: the escape hatch for an
    /// operation a newer daemon adds that this build has no ``ControlEndpoint`` for. Every
    /// operation this build knows has a typed method (``call(_:_:)``).
    ///
    /// - Throws: the ``AlarmOperationError`` or ``AlarmManager/AlarmError`` the daemon reported,
    ///   a ``ControlError`` for a protocol refusal (`forbidden`, `unknownOperation`, ...), or
    ///   ``AlarmOperationError/serviceUnavailable(_:)`` if the daemon cannot be reached.
    public func request(_ operation: String, parameters: [String: JSONValue] = [:]) async throws -> JSONValue {
        try await request(operation, parameters, as: JSONValue.self)
    }

    /// Any operation, with its result decoded straight from the response line as `type`.
    ///
    /// - Throws: as ``request(_:parameters:)``, and a ``ControlError`` (`malformed`) naming the
    ///   field if the result is not a `type`.
    public func request<Result: Decodable>(
        _ operation: String, parameters: [String: JSONValue] = [:], as type: Result.Type
    ) async throws -> Result {
        try await request(operation, parameters, as: type)
    }

    /// `endpoint`'s answer as the daemon sent it, undecoded: for passing it on unchanged, with
    /// any fields a newer daemon adds (`alarmctl status --json`).
    public func answerAsSent<Parameters>(
        _ endpoint: ControlEndpoint<Parameters, some Any>, _ parameters: Parameters
    ) async throws -> JSONValue {
        try await request(endpoint.operation.name, parameters, as: JSONValue.self)
    }

    /// ``answerAsSent(_:_:)`` for an operation that takes no parameters.
    public func answerAsSent(_ endpoint: ControlEndpoint<NoParameters, some Any>) async throws -> JSONValue {
        try await answerAsSent(endpoint, NoParameters())
    }

    func request<Parameters: Encodable, Result: Decodable>(
        _ operation: String, _ parameters: Parameters, as type: Result.Type
    ) async throws -> Result {
        let channel = try await channel()
        let line = try await channel.request(operation, parameters)
        return try Self.result(of: line, as: type, operation: operation)
    }

    // MARK: - Streams

    /// The caller's whole list now, then after every change, across reconnections (each new
    /// connection starts with the list as it is then). Each call returns a new stream.
    public func alarmUpdates() -> AsyncStream<[Alarm]> {
        stream(.subscribeAlarms, of: [Alarm].self)
    }

    /// The caller's authorization now, then every change, across reconnections.
    public func authorizationUpdates() -> AsyncStream<AlarmManager.AuthorizationState> {
        stream(.subscribeAuthorization, of: AlarmManager.AuthorizationState.self)
    }

    /// The intents delivered to the caller: those waiting at once, then each new one, across
    /// reconnections (each new connection starts with those still waiting, so one may come again
    /// until it is acknowledged).
    public func intentDeliveries() -> AsyncStream<AlarmIntentDelivery> {
        stream(.subscribeIntents, of: AlarmIntentDelivery.self)
    }

    /// A ``DeviceChange`` with the current revision at once, then after every change of any
    /// client's alarms or of the device's state and every press of its buttons, across
    /// reconnections (each new connection starts with the revision then: read what you show
    /// whenever one comes).
    /// Administrators only; for another client the stream ends at once.
    public func deviceChanges() -> AsyncStream<DeviceChange> {
        stream(.subscribeDevice, of: DeviceChange.self)
    }

    private func stream<Value: Decodable & Sendable>(
        _ endpoint: ControlEndpoint<NoParameters, ControlSubscription>, of type: Value.Type
    ) -> AsyncStream<Value> {
        let operation = endpoint.operation.name
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        let sink: ControlChannel.Sink = { line in
            if let event = try? ControlProtocol.makeDecoder().decode(EventEnvelope<Value>.self, from: Data(line)) {
                continuation.yield(event.data)
            }
        }
        let key: Int? = state.withLock { state in
            guard !state.closed else { return nil }
            state.nextSubscription += 1
            state.subscriptions[state.nextSubscription] = Subscription(
                operation: operation, sink: sink, finish: { continuation.finish() })
            return state.nextSubscription
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in self?.removeSubscription(key) }
        Task { [weak self] in
            guard let self else { return }
            do {
                try await subscribe(key, on: try await channel())
            } catch {
                reconnectIfNeeded()
            }
        }
        return stream
    }

    /// Subscribes `key` on `channel` unless it already is.
    private func subscribe(_ key: Int, on channel: ControlChannel) async throws {
        let serial = channel.serial
        guard let subscription = state.withLock({ state -> Subscription? in
            guard let subscription = state.subscriptions[key], subscription.channel != serial else { return nil }
            state.subscriptions[key]?.channel = serial
            state.subscriptions[key]?.number = nil
            return subscription
        }) else { return }
        let line = try await channel.request(subscription.operation, NoParameters(), route: subscription.sink)
        let number = try Self.result(of: line, as: ControlSubscription.self, operation: subscription.operation).subscription
        let stillWanted = state.withLock { state -> Bool in
            guard state.subscriptions[key]?.channel == serial else { return false }
            state.subscriptions[key]?.number = number
            return true
        }
        if !stillWanted { unsubscribe(number, on: channel) }
    }

    private func removeSubscription(_ key: Int) {
        let removed = state.withLock { state -> (Subscription, ControlChannel?)? in
            guard let subscription = state.subscriptions.removeValue(forKey: key) else { return nil }
            return (subscription, state.channel)
        }
        guard let (subscription, channel) = removed, let channel, let number = subscription.number,
            subscription.channel == channel.serial
        else { return }
        unsubscribe(number, on: channel)
    }

    private func unsubscribe(_ number: Int, on channel: ControlChannel) {
        channel.removeRoute(number)
        Task { _ = try? await channel.request(ControlOperation.unsubscribe.name, UnsubscribeParameters(subscription: number)) }
    }

    // MARK: - Connecting

    /// The open channel, connecting (once, for all callers) if there is none.
    private func channel() async throws -> ControlChannel {
        let task: Task<ControlChannel, any Error> = try state.withLock { state in
            if state.closed { throw AlarmOperationError.serviceUnavailable("the control client is closed") }
            if let channel = state.channel, !channel.isClosed { return Task { channel } }
            if let connecting = state.connecting { return connecting }
            let connecting = Task { try await self.connect() }
            state.connecting = connecting
            return connecting
        }
        return try await task.value
    }

    /// Opens a connection, says hello, and subscribes every stream on it.
    private func connect() async throws -> ControlChannel {
        defer { state.withLock { $0.connecting = nil } }
        let connector = self.connector
        let opened = await DetachedThread.run { () -> Result<Int32, ControlSocketError> in
            do throws(ControlSocketError) {
                return .success(try connector.open())
            } catch {
                return .failure(error)
            }
        }
        let fd: Int32
        switch opened {
        case .success(let descriptor): fd = descriptor
        case .failure(let error): throw AlarmOperationError.serviceUnavailable("\(error)")
        }
        let serial = state.withLock { state in
            state.channelSerial += 1
            return state.channelSerial
        }
        let channel = try ControlChannel(fd: fd, serial: serial) { [weak self] in self?.channelClosed() }
        let hello: ControlHello
        do {
            hello = try Self.hello(from: try await channel.request(ControlOperation.hello.name, ControlHelloParameters(app: app)))
        } catch {
            channel.close()
            throw error
        }
        let keys: [Int] = try state.withLock { state in
            if state.closed {
                channel.close()
                throw AlarmOperationError.serviceUnavailable("the control client is closed")
            }
            state.channel = channel
            state.hello = hello
            return Array(state.subscriptions.keys)
        }
        for key in keys {
            try? await subscribe(key, on: channel)
        }
        return channel
    }

    private func channelClosed() {
        state.withLock { state in
            if let channel = state.channel, channel.isClosed {
                state.channel = nil
                state.hello = nil
                if !state.closed { state.lossWatchers.values.forEach { $0.yield() } }
            }
        }
        reconnectIfNeeded()
    }

    /// An element each time the connection to alarmd is lost from now on (alarmd stopped or
    /// restarted); the client connects again by itself at the next request or for its streams.
    public func connectionLosses() -> AsyncStream<Void> {
        let (losses, continuation) = AsyncStream.makeStream(of: Void.self)
        let key = state.withLock { state -> Int? in
            guard !state.closed else { return nil }
            state.nextSubscription += 1
            state.lossWatchers[state.nextSubscription] = continuation
            return state.nextSubscription
        }
        guard let key else {
            continuation.finish()
            return losses
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.lossWatchers.removeValue(forKey: key) } }
        return losses
    }

    /// Starts the reconnection loop if streams are waiting and nothing is connected or connecting.
    private func reconnectIfNeeded() {
        state.withLock { state in
            guard !state.closed, state.reconnecting == nil, !state.subscriptions.isEmpty else { return }
            state.reconnecting = Task { [weak self] in await self?.reconnect() }
        }
    }

    private func reconnect() async {
        var delay = backoff.lowerBound
        var first = true
        while !Task.isCancelled {
            let needed = state.withLock { state -> Bool in
                let connected = state.channel.map { !$0.isClosed } ?? false
                let bound = state.subscriptions.values.allSatisfy { $0.channel != nil && $0.channel == state.channel?.serial }
                if state.closed || state.subscriptions.isEmpty || (connected && bound) {
                    state.reconnecting = nil
                    return false
                }
                return true
            }
            guard needed else { return }
            if !first {
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, backoff.upperBound)
            }
            first = false
            if let channel = try? await channel() {
                for key in state.withLock({ Array($0.subscriptions.keys) }) {
                    try? await subscribe(key, on: channel)
                }
            }
        }
        state.withLock { $0.reconnecting = nil }
    }
}
