import AlarmTime
import Synchronization

/// A time zone that changes only when a test changes it.
public final class ManualTimeZoneProvider: TimeZoneProvider, Sendable {
    private struct State {
        var zone: TimeZoneRules
        var subscribers: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextSubscriber = 0
    }

    private let state: Mutex<State>

    public init(_ zone: TimeZoneRules) {
        state = Mutex(State(zone: zone))
    }

    public func currentZone() throws(TimeZoneError) -> TimeZoneRules {
        state.withLock { $0.zone }
    }

    public func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let key = state.withLock { state in
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: key) }
        }
        return stream
    }

    public func set(_ zone: TimeZoneRules) {
        let subscribers = state.withLock { state in
            state.zone = zone
            return Array(state.subscribers.values)
        }
        subscribers.forEach { $0.yield(()) }
    }
}
