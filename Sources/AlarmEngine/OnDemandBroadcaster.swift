import Synchronization

/// Fans states out to `AsyncStream`s, one set per key, like a replaying ``Broadcaster``, but
/// builds a key's state only when someone is subscribed to it.
///
/// A client's alarm list costs a sort and a conversion of every one of its alarms; the runtime
/// built it on every change although usually nobody listens (`alarmctl` asks and hangs up). Here a
/// change of a key nobody follows only forgets its latest state. A subscriber to a key without a
/// current state waits for ``fill(_:with:)``, which its `requestState` asks for; a state published
/// meanwhile reaches it instead. Either way it gets the state at its subscription first, then every
/// later one, none twice.
///
/// The owner must call ``publish(for:_:)`` on every change of a key's state, and `publish` and
/// `fill` from one serial context (the runtime's actor), so that a state built there is current.
final class OnDemandBroadcaster<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        /// Current states only: a key without one has changed since, or was never built.
        var latest: [Key: Value] = [:]
        var subscribers: [Key: [Int: AsyncStream<Value>.Continuation]] = [:]
        /// Subscribed while their key had no current state: waiting for their first value.
        var waiting: [Key: [Int: AsyncStream<Value>.Continuation]] = [:]
        var nextToken = 0
        var isFinished = false

        func isFollowed(_ key: Key) -> Bool {
            subscribers[key] != nil || waiting[key] != nil
        }

        /// Sends `value` to every subscriber of `key`, also those waiting for their first.
        mutating func deliver(_ value: Value, for key: Key) {
            subscribers[key]?.values.forEach { $0.yield(value) }
            answerWaiting(with: value, for: key)
        }

        /// Sends `value` to the subscribers of `key` waiting for their first, who then follow it.
        mutating func answerWaiting(with value: Value, for key: Key) {
            latest[key] = value
            guard let waiting = waiting.removeValue(forKey: key) else { return }
            for (token, continuation) in waiting {
                continuation.yield(value)
                subscribers[key, default: [:]][token] = continuation
            }
        }

        mutating func remove(_ token: Int, for key: Key) {
            subscribers[key]?[token] = nil
            if subscribers[key]?.isEmpty == true { subscribers[key] = nil }
            waiting[key]?[token] = nil
            if waiting[key]?.isEmpty == true { waiting[key] = nil }
        }
    }

    private let state = Mutex(State())

    init() {}

    /// A new stream of `key`'s states, starting with the current one. If it has to be built,
    /// `requestState` is called (once, outside the lock) to have ``fill(_:with:)`` called soon.
    func subscribe(_ key: Key, requestState: () -> Void) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        let subscription: (token: Int, needsState: Bool)? = state.withLock { state in
            guard !state.isFinished else { return nil }
            state.nextToken += 1
            if let value = state.latest[key] {
                continuation.yield(value)
                state.subscribers[key, default: [:]][state.nextToken] = continuation
                return (state.nextToken, false)
            }
            state.waiting[key, default: [:]][state.nextToken] = continuation
            return (state.nextToken, true)
        }
        guard let subscription else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { $0.remove(subscription.token, for: key) }
        }
        if subscription.needsState { requestState() }
        return stream
    }

    /// `key`'s state changed: sends the one `makeState` builds to its subscribers, or, with none,
    /// only forgets the latest without building anything.
    func publish(for key: Key, _ makeState: () -> Value) {
        let isFollowed = state.withLock { state in
            if state.isFollowed(key) { return true }
            state.latest[key] = nil
            return false
        }
        guard isFollowed else { return }
        // Built outside the lock: a subscriber arriving meanwhile waits, and gets this value.
        let value = makeState()
        state.withLock { $0.deliver(value, for: key) }
    }

    /// Sends `key`'s current state, built by `makeState`, to the subscribers waiting for their
    /// first; nothing if none waits (a publish reached them first).
    ///
    /// A key with waiting subscribers has no latest state (else they would have had it), and its
    /// other subscribers, if any, have the current one: only the waiting ones are sent this.
    func fill(_ key: Key, with makeState: () -> Value) {
        guard state.withLock({ $0.waiting[key] != nil }) else { return }
        let value = makeState()
        state.withLock { $0.answerWaiting(with: value, for: key) }
    }

    /// Ends every stream; later subscriptions end at once.
    func finishAll() {
        let all = state.withLock { state in
            defer {
                state.subscribers.removeAll()
                state.waiting.removeAll()
                state.isFinished = true
            }
            return state.subscribers.values.flatMap(\.values) + state.waiting.values.flatMap(\.values)
        }
        all.forEach { $0.finish() }
    }
}
