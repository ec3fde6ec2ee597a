import Synchronization

/// The event streams open now, each given every new page state.
final class StateHub: Sendable {
    private struct State {
        var subscribers: [UInt64: @Sendable (PageState) -> Void] = [:]
        var next: UInt64 = 0
    }

    private let state = Mutex(State())

    func publish(_ page: PageState) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        subscribers.forEach { $0(page) }
    }

    func subscribe(_ receive: @escaping @Sendable (PageState) -> Void) -> UInt64 {
        state.withLock { state in
            state.next += 1
            state.subscribers[state.next] = receive
            return state.next
        }
    }

    func unsubscribe(_ id: UInt64) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
    }
}
