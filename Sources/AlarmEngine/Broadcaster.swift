import Synchronization

/// Fans values out to any number of `AsyncStream`s, one set per key, optionally replaying the
/// latest value of a key to a new subscriber (for states; events are not replayed).
///
/// Subscribing is synchronous and happens under the same lock as publishing, so a subscriber gets
/// exactly the latest value and then every later one: no change can slip between the two. Buffers
/// are unbounded because every subscriber must get every change.
final class Broadcaster<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var latest: [Key: Value] = [:]
        var subscribers: [Key: [Int: AsyncStream<Value>.Continuation]] = [:]
        var nextToken = 0
    }

    private let state = Mutex(State())
    private let replaysLatest: Bool
    /// What a key that was never published replays; `nil` replays nothing.
    private let initialValue: Value?

    /// A broadcaster of states (`replaysLatest`) or of events.
    init(replaysLatest: Bool, initialValue: Value? = nil) {
        self.replaysLatest = replaysLatest
        self.initialValue = initialValue
    }

    /// A new stream for `key` that starts with the latest value.
    func subscribe(_ key: Key) -> AsyncStream<Value> {
        subscribe(key, startingWith: [])
    }

    /// A new stream for `key` that starts with the latest value, then `first` (what the caller
    /// keeps of its own, read under a lock it also holds when it publishes).
    func subscribe(_ key: Key, startingWith first: [Value]) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        let token = state.withLock { state in
            if replaysLatest, let value = state.latest[key] ?? initialValue { continuation.yield(value) }
            first.forEach { continuation.yield($0) }
            state.nextToken += 1
            state.subscribers[key, default: [:]][state.nextToken] = continuation
            return state.nextToken
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                state.subscribers[key]?[token] = nil
                if state.subscribers[key]?.isEmpty == true { state.subscribers[key] = nil }
            }
        }
        return stream
    }

    /// Records `value` as the latest for `key` and sends it to every subscriber of `key`; returns
    /// how many there were.
    @discardableResult
    func publish(_ value: Value, for key: Key) -> Int {
        state.withLock { state in
            if replaysLatest { state.latest[key] = value }
            let subscribers = state.subscribers[key]?.values ?? [:].values
            subscribers.forEach { $0.yield(value) }
            return subscribers.count
        }
    }

    /// Sends `value` to the subscribers of every key that `matches` (an event: nothing is
    /// recorded as the latest); returns how many there were.
    func publish(_ value: Value, toEvery matches: (Key) -> Bool) -> Int {
        state.withLock { state in
            var count = 0
            for (key, subscribers) in state.subscribers where matches(key) {
                subscribers.values.forEach { $0.yield(value) }
                count += subscribers.count
            }
            return count
        }
    }

    /// The value a new subscriber of `key` would get first.
    func latest(_ key: Key) -> Value? {
        state.withLock { $0.latest[key] ?? initialValue }
    }

    func finishAll() {
        let all = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return state.subscribers.values.flatMap(\.values)
        }
        all.forEach { $0.finish() }
    }
}
