import AlarmHardware
import Synchronization

/// The streams of ``ALSAAudioOutput/failures()``: every subscriber gets every failure sent after
/// it subscribed. (The same shape as the simulator's `EventFeed`, which this target cannot import.)
final class FailureFeed: Sendable {
    private let subscribers = Mutex<[Int: AsyncStream<HardwareError>.Continuation]>([:])
    private let nextKey = Atomic<Int>(0)

    /// A new stream of the failures sent from now on.
    func subscribe() -> AsyncStream<HardwareError> {
        let (stream, continuation) = AsyncStream.makeStream(of: HardwareError.self)
        let key = nextKey.add(1, ordering: .relaxed).newValue
        subscribers.withLock { $0[key] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.removeValue(forKey: key) }
        }
        return stream
    }

    /// Sends `failure` to every subscriber.
    func send(_ failure: HardwareError) {
        subscribers.withLock { $0.values.forEach { $0.yield(failure) } }
    }
}
