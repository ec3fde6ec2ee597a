import CMosquitto
import FoundationEssentials
import Glibc
import LinuxSupport
import Synchronization

/// One MQTT connection through libmosquitto (MQTT 3.1.1), kept up for as long as it runs: it
/// connects, and after any loss (the broker restarting, the network, a refused login) connects
/// again after 1, 2, 4 ... up to 60 s, for ever, reporting each change as an ``Event``.
///
/// ```swift
/// let client = try MQTTClient(.init(host: "127.0.0.1", port: 1883, clientID: "alarm-mqtt-bedroom",
///     will: .init(topic: "alarmd/bedroom/availability", payload: "offline")))
/// try client.subscribe("alarmd/bedroom/cmd/#")
/// client.start()
/// for await event in client.events() { ... }
/// ```
///
/// The connection lives on a thread of its own (`alarm-mqtt-loop`), which also runs
/// libmosquitto's callbacks; they only copy what arrived into ``events()``. ``publish(_:_:qos:retain:)``
/// may be called from any thread: libmosquitto queues the packet and wakes that thread at once.
/// Subscriptions are made again on every connection (the session is clean: nothing queued
/// for a clock that was away is delivered late). A message the broker kept (`retained`) is
/// reported as such, so a command topic can refuse one.
public final class MQTTClient: @unchecked Sendable {
    // @unchecked: `handle` is set once in init and destroyed in deinit; libmosquitto is told it
    // is used from several threads (`mosquitto_threaded_set`), which makes publish, subscribe
    // and disconnect safe beside the loop thread. Everything else here is a Mutex or constant.

    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var clientID: String
        public var username: String?
        public var password: String?
        /// Certificate authorities to verify the broker with (TLS); `nil`: plain TCP.
        public var caFile: String?
        /// Seconds between keep-alive pings while idle.
        public var keepAlive: Int = 60
        /// What the broker publishes when the connection is lost without a goodbye.
        public var will: Message?
        /// The longest wait between attempts to connect.
        public var maximumBackoff: Duration = .seconds(60)

        public init(
            host: String, port: Int, clientID: String, username: String? = nil, password: String? = nil, caFile: String? = nil,
            will: Message? = nil
        ) {
            (self.host, self.port, self.clientID) = (host, port, clientID)
            (self.username, self.password, self.caFile, self.will) = (username, password, caFile, will)
        }
    }

    /// A message to publish, or one that arrived.
    public struct Message: Sendable, Hashable {
        public var topic: String
        public var payload: [UInt8]
        public var retained: Bool

        public init(topic: String, payload: [UInt8], retained: Bool = true) {
            (self.topic, self.payload, self.retained) = (topic, payload, retained)
        }

        public init(topic: String, payload: String, retained: Bool = true) {
            self.init(topic: topic, payload: Array(payload.utf8), retained: retained)
        }

        public var text: String { String(decoding: payload, as: UTF8.self) }
    }

    public enum Event: Sendable, Hashable {
        /// Connected (again): publish what subscribers should see now.
        case connected
        /// The connection was lost or refused, with why; another attempt follows.
        case disconnected(String)
        case message(Message)
    }

    private let handle: OpaquePointer
    private let configuration: Configuration
    private let context: Unmanaged<Context>
    private let wake: EventSignal
    private let state = Mutex(State())

    private struct State {
        var subscriptions: [(topic: String, qos: Int32)] = []
        var running = false
        var stopping = false
        var ended: CheckedContinuation<Void, Never>?
        var loopEnded = false
    }

    struct Farewell {
        var collecting = false
        var acknowledged: Set<Int32> = []
        var id: Int32?
        var waiting: CheckedContinuation<Void, Never>?
    }

    struct WeakClient: Sendable {
        weak var client: MQTTClient?
    }

    /// What the C callbacks reach through libmosquitto's user data.
    final class Context: Sendable {
        let events: AsyncStream<Event>
        let continuation: AsyncStream<Event>.Continuation
        let connected = Mutex(false)
        /// The client, for the connect callback's subscriptions; weak: the client owns this.
        let client = Mutex(WeakClient())
        /// While ``stop(farewell:)`` runs: the publishes acknowledged since it began, the one it
        /// waits for, and the wait.
        let farewell = Mutex(Farewell())

        init() {
            (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(1024))
        }
    }

    /// - Throws: ``MQTTError`` when libmosquitto cannot make the client, or refuses the
    ///   configuration (an unreadable CA file, a will it cannot take).
    public init(_ configuration: Configuration) throws(MQTTError) {
        MQTTLibrary.initialize()
        guard let wake = EventSignal() else { throw MQTTError("no eventfd for the MQTT thread: \(String(cString: strerror(errno)))") }
        let context = Unmanaged.passRetained(Context())
        guard let handle = mosquitto_new(configuration.clientID, true, context.toOpaque()) else {
            context.release()
            throw MQTTError("libmosquitto could not make a client: \(String(cString: strerror(errno)))")
        }
        (self.handle, self.configuration, self.context, self.wake) = (handle, configuration, context, wake)
        // A throw from here on runs deinit, which destroys the client and releases the context.
        try Self.check(mosquitto_threaded_set(handle, true), "threaded_set")
        try Self.check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311), "protocol version")
        try Self.check(mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1), "TCP_NODELAY")
        if configuration.username != nil || configuration.password != nil {
            try Self.check(mosquitto_username_pw_set(handle, configuration.username, configuration.password), "username")
        }
        if let caFile = configuration.caFile {
            try Self.check(mosquitto_tls_set(handle, caFile, nil, nil, nil, nil), "TLS with the CA file \(caFile)")
        }
        if let will = configuration.will {
            let result = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(handle, will.topic, Int32(bytes.count), bytes.baseAddress, 1, will.retained)
            }
            try Self.check(result, "will")
        }
        mosquitto_connect_callback_set(handle, MQTTCallbacks.connected)
        mosquitto_disconnect_callback_set(handle, MQTTCallbacks.disconnected)
        mosquitto_message_callback_set(handle, MQTTCallbacks.message)
        mosquitto_publish_callback_set(handle, MQTTCallbacks.published)
        context.takeUnretainedValue().client.withLock { $0.client = self }
    }

    deinit {
        mosquitto_destroy(handle)
        context.release()
    }

    /// What happens to the connection, and the messages that arrive, in order.
    public func events() -> AsyncStream<Event> {
        context.takeUnretainedValue().events
    }

    /// Subscribes to `topic` (a filter; `#` and `+` allowed) now if connected and on every
    /// connection from now on.
    public func subscribe(_ topic: String, qos: Int32 = 1) throws(MQTTError) {
        state.withLock { $0.subscriptions.append((topic, qos)) }
        if context.takeUnretainedValue().connected.withLock({ $0 }) {
            try Self.check(mosquitto_subscribe(handle, nil, topic, qos), "subscribe \(topic)")
            wake.signal()
        }
    }

    /// Publishes `message` (QoS 1 unless told). Refused while not connected, so nothing piles up
    /// in memory during an outage: the caller republishes what is current on ``Event/connected``.
    @discardableResult
    public func publish(_ message: Message, qos: Int32 = 1) throws(MQTTError) -> Int32 {
        guard context.takeUnretainedValue().connected.withLock({ $0 }) else { throw MQTTError("not connected to the broker") }
        var id: Int32 = 0
        let result = message.payload.withUnsafeBytes { bytes in
            mosquitto_publish(handle, &id, message.topic, Int32(bytes.count), bytes.baseAddress, qos, message.retained)
        }
        try Self.check(result, "publish \(message.topic)")
        wake.signal()
        return id
    }

    /// Starts connecting, on the client's own thread.
    public func start() {
        let begin = state.withLock { state -> Bool in
            defer { state.running = true }
            return !state.running
        }
        guard begin else { return }
        DetachedThread.start { [self] in
            DetachedThread.nameCurrentThread("alarm-mqtt-loop")
            runLoop()
        }
    }

    /// Publishes `farewell` if connected (the will is not sent after a goodbye), disconnects and
    /// waits for the thread to end.
    public func stop(farewell: Message? = nil) async {
        let box = context.takeUnretainedValue()
        box.farewell.withLock { $0 = Farewell(collecting: true) }
        if let farewell, let id = try? publish(farewell) {
            // Acknowledged before the goodbye, or the broker may drop it with the connection;
            // a broker that does not answer within two seconds is not waited for longer.
            let timeout = Task {
                try? await Task.sleep(for: .seconds(2))
                box.farewell.withLock { state in
                    defer { state.waiting = nil }
                    return state.waiting
                }?.resume()
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = box.farewell.withLock { state -> Bool in
                    state.id = id
                    if state.acknowledged.contains(id) { return true }
                    state.waiting = continuation
                    return false
                }
                if done { continuation.resume() }
            }
            timeout.cancel()
        }
        let wasRunning = state.withLock { state -> Bool in
            state.stopping = true
            return state.running && !state.loopEnded
        }
        mosquitto_disconnect(handle)
        wake.signal()
        guard wasRunning else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state -> Bool in
                if state.loopEnded { return true }
                state.ended = continuation
                return false
            }
            if ended { continuation.resume() }
        }
    }

    // MARK: - The loop thread

    private func runLoop() {
        var backoff = Duration.seconds(1)
        var connectedOnce = false
        while !isStopping {
            let result: Int32
            if connectedOnce {
                result = mosquitto_reconnect(handle)
            } else {
                result = mosquitto_connect(handle, configuration.host, Int32(configuration.port), Int32(configuration.keepAlive))
                connectedOnce = result == MOSQ_ERR_SUCCESS.rawValue
            }
            if result == MOSQ_ERR_SUCCESS.rawValue {
                var loop = MOSQ_ERR_SUCCESS.rawValue
                while !isStopping, loop == MOSQ_ERR_SUCCESS.rawValue {
                    loop = pump(timeout: Int32(configuration.keepAlive * 500))
                    if context.takeUnretainedValue().connected.withLock({ $0 }) { backoff = .seconds(1) }
                }
                if isStopping { break }
                report(Self.describe(loop))
            } else {
                report(Self.describe(result))
            }
            pause(for: backoff)
            backoff = min(backoff * 2, configuration.maximumBackoff)
        }
        // A DISCONNECT queued by stop() is written before the thread ends.
        if mosquitto_want_write(handle) { _ = mosquitto_loop_write(handle, 1) }
        context.takeUnretainedValue().connected.withLock { $0 = false }
        let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.loopEnded = true
            defer { state.ended = nil }
            return state.ended
        }
        waiting?.resume()
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    /// One turn of the connection: waits (poll, not libmosquitto's select, which refuses a
    /// descriptor above 1023) for the broker's socket or the wake-up, then reads, writes what
    /// is queued and keeps the connection alive (pings at half the keep-alive at the latest).
    private func pump(timeout: Int32) -> Int32 {
        let socket = mosquitto_socket(handle)
        guard socket >= 0 else { return MOSQ_ERR_NO_CONN.rawValue }
        var entries = [
            pollfd(fd: socket, events: Int16(POLLIN) | (mosquitto_want_write(handle) ? Int16(POLLOUT) : 0), revents: 0),
            pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0),
        ]
        if poll(&entries, 2, timeout) < 0, errno != EINTR { return MOSQ_ERR_ERRNO.rawValue }
        if entries[1].revents != 0 { wake.drain() }
        if entries[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            let read = mosquitto_loop_read(handle, 1)
            guard read == MOSQ_ERR_SUCCESS.rawValue else { return read }
        }
        if mosquitto_want_write(handle) {
            let written = mosquitto_loop_write(handle, 1)
            guard written == MOSQ_ERR_SUCCESS.rawValue else { return written }
        }
        return mosquitto_loop_misc(handle)
    }

    private func report(_ reason: String) {
        let context = context.takeUnretainedValue()
        let was = context.connected.withLock { connected -> Bool in
            defer { connected = false }
            return connected
        }
        // Every failed attempt is reported once; a long outage is one event per attempt.
        context.continuation.yield(.disconnected(was ? "connection lost: \(reason)" : reason))
    }

    /// Waits `length` on the wake-up eventfd, so that stop() ends the wait at once.
    private func pause(for length: Duration) {
        var entry = pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(length / .milliseconds(1))
        _ = poll(&entry, 1, milliseconds)
        wake.drain()
    }

    /// After a CONNACK: subscribe again (the session is clean).
    func didConnect() {
        let subscriptions = state.withLock { $0.subscriptions }
        for subscription in subscriptions {
            _ = mosquitto_subscribe(handle, nil, subscription.topic, subscription.qos)
        }
    }

    static func check(_ result: Int32, _ what: String) throws(MQTTError) {
        guard result == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError("\(what): \(describe(result))") }
    }

    static func describe(_ result: Int32) -> String {
        if result == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
        return String(cString: mosquitto_strerror(result))
    }
}
