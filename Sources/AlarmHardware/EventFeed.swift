import Synchronization

/// A fan-out of events: every subscriber gets every event sent after it subscribed. Backends use
/// it for `failures()`, the fakes for their event streams.
///
/// Tests await events rather than poll state: subscribe first, act, then `await iterator.next()`.
public final class EventFeed<Event: Sendable>: Sendable {
    private let subscribers = Mutex<[Int: AsyncStream<Event>.Continuation]>([:])
    private let nextKey = Atomic<Int>(0)

    public init() {}

    public func subscribe() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        let key = nextKey.add(1, ordering: .relaxed).newValue
        subscribers.withLock { $0[key] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.removeValue(forKey: key) }
        }
        return stream
    }

    /// Sends `event` to every subscriber; returns whether there was one.
    @discardableResult
    public func send(_ event: Event) -> Bool {
        subscribers.withLock { subscribers in
            subscribers.values.forEach { $0.yield(event) }
            return !subscribers.isEmpty
        }
    }
}
