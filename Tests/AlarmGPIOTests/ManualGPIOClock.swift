@testable import AlarmGPIO
import Glibc
import LinuxSupport
import Synchronization

/// A ``GPIOThreadClock`` that moves only when a test moves it, for the backends' real threads.
///
/// ```swift
/// let clock = ManualGPIOClock(now: .seconds(100), boottimeOffset: .seconds(7))
/// // ... the backend's thread waits until 100.03 s ...
/// clock.advance(to: .milliseconds(100_030))   // the thread wakes
/// ```
///
/// A thread waiting on it really blocks, in `poll` on its descriptors and a private eventfd that
/// ``advance(to:)`` signals; it returns when a descriptor is readable or the manual time has
/// reached its deadline. A deadline already past returns at once, so it does not matter whether
/// the thread starts waiting before or after a move: the backends compute absolute deadlines.
final class ManualGPIOClock: GPIOThreadClock, Sendable {
    private struct State {
        var now: Duration
        var boottimeOffset: Duration
        var sleepers: [Int: EventSignal] = [:]
        var nextKey = 0
        var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        mutating func readyWaiters() -> [CheckedContinuation<Void, Never>] {
            let ready = sleeperWaiters.filter { $0.count <= sleepers.count }.map(\.continuation)
            sleeperWaiters.removeAll { $0.count <= sleepers.count }
            return ready
        }
    }

    private let state: Mutex<State>

    init(now: Duration = .seconds(100), boottimeOffset: Duration = .zero) {
        state = Mutex(State(now: now, boottimeOffset: boottimeOffset))
    }

    func now() -> Duration { state.withLock { $0.now } }

    func boottimeOffset() -> Duration { state.withLock { $0.boottimeOffset } }

    func advance(to time: Duration) {
        let sleepers = state.withLock { state in
            state.now = max(state.now, time)
            return Array(state.sleepers.values)
        }
        sleepers.forEach { $0.signal() }
    }

    func advance(by interval: Duration) {
        advance(to: now() + interval)
    }

    /// Suspends until at least `count` threads wait on this clock.
    func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                state.sleeperWaiters.append((count, continuation))
                return state.readyWaiters()
            }
            ready.forEach { $0.resume() }
        }
    }

    func wait(for descriptors: [Int32], until deadline: Duration?) throws(GPIOErrno) -> [Int16] {
        let tick: EventSignal
        do {
            tick = try EventSignal.wakingBackend(device: "manual clock")
        } catch {
            throw GPIOErrno(error.errno ?? EIO)
        }
        let key = state.withLock { state in
            state.nextKey += 1
            return state.nextKey
        }
        defer { _ = state.withLock { $0.sleepers.removeValue(forKey: key) } }
        var entries = (descriptors + [tick.descriptor]).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while true {
            let (due, ready) = state.withLock { state in
                if let deadline, state.now >= deadline { return (true, [CheckedContinuation<Void, Never>]()) }
                state.sleepers[key] = tick
                return (false, state.readyWaiters())
            }
            ready.forEach { $0.resume() }
            if due { return [Int16](repeating: 0, count: descriptors.count) }
            for index in entries.indices { entries[index].revents = 0 }
            let result = poll(&entries, nfds_t(entries.count), -1)
            if result < 0 {
                if errno == EINTR { continue }
                throw GPIOErrno(errno)
            }
            let events = entries.dropLast().map(\.revents)
            if events.contains(where: { $0 != 0 }) { return events }
            tick.drain()
        }
    }
}
