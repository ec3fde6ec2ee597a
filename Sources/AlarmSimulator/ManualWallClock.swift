import AlarmTime
import FoundationEssentials
import Synchronization

/// A wall clock that moves only when a test moves it.
///
/// ```swift
/// let clock = ManualWallClock(now: sixFiftyNine)
/// // ... the code under test sleeps until 07:00 ...
/// await clock.waitForSleepers()
/// clock.advance(to: seven)          // the sleeper wakes with .deadlineReached
/// clock.setWallClock(to: eight)     // a jump: sleepers wake with .clockChanged
/// ```
///
/// `advance` moves the wall clock and the monotonic clock together; `setWallClock` moves only the
/// wall clock, as `settimeofday` does. A sleep whose deadline has already passed returns at once,
/// so it does not matter whether the code under test starts sleeping before or after a move.
public final class ManualWallClock: WallClock, Sendable {
    private struct Sleeper {
        let id: UInt64
        let deadline: Date
        let continuation: CheckedContinuation<WallClockWake, any Error>
    }

    private struct State {
        var now: Date
        var monotonic: Duration = .seconds(1_000)
        var nextSleeperID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var nextWaiterID: UInt64 = 0
        var sleeperWaiters: [(id: UInt64, ready: @Sendable ([Date]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

        /// Removes and returns the waiters whose condition now holds.
        mutating func readyWaiters() -> [CheckedContinuation<Void, Never>] {
            let deadlines = sleepers.map(\.deadline)
            let ready = sleeperWaiters.filter { $0.ready(deadlines) }.map(\.continuation)
            sleeperWaiters.removeAll { $0.ready(deadlines) }
            return ready
        }
    }

    private let state: Mutex<State>

    public init(now: Date) {
        state = Mutex(State(now: now))
    }

    public var now: Date { state.withLock { $0.now } }

    public var monotonicNow: Duration { state.withLock { $0.monotonic } }

    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public var earliestSleeperDeadline: Date? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    public func sleep(until deadline: Date) async throws -> WallClockWake {
        try Task.checkCancellation()
        let id = state.withLock { state in
            state.nextSleeperID += 1
            return state.nextSleeperID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<WallClockWake, any Error>) in
                let waitersToResume: [CheckedContinuation<Void, Never>]? = state.withLock { state in
                    if deadline <= state.now {
                        return nil
                    }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return state.readyWaiters()
                }
                guard let waitersToResume else {
                    continuation.resume(returning: .deadlineReached)
                    return
                }
                waitersToResume.forEach { $0.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves both clocks forward by `interval` seconds and wakes every sleeper now due.
    public func advance(by interval: TimeInterval) {
        advance(to: now.addingTimeInterval(interval))
    }

    /// Moves both clocks forward to `instant` and wakes every sleeper due by then, earliest first.
    /// Moving backwards is a clock jump: use ``setWallClock(to:)``.
    public func advance(to instant: Date) {
        let due = state.withLock { state -> [Sleeper] in
            precondition(instant >= state.now, "advance(to:) cannot go back in time; use setWallClock(to:)")
            state.monotonic += .milliseconds(Int64((instant.timeIntervalSince(state.now) * 1000).rounded()))
            state.now = instant
            let due = state.sleepers.filter { $0.deadline <= instant }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= instant }
            return due
        }
        due.forEach { $0.continuation.resume(returning: .deadlineReached) }
    }

    /// Sets the wall clock, forwards or backwards, without moving the monotonic clock, and wakes
    /// every sleeper with ``WallClockWake/clockChanged``, as a real clock set does.
    public func setWallClock(to instant: Date) {
        let all = state.withLock { state -> [Sleeper] in
            state.now = instant
            defer { state.sleepers.removeAll() }
            return state.sleepers
        }
        all.forEach { $0.continuation.resume(returning: .clockChanged) }
    }

    /// Suspends until at least `count` tasks are asleep on this clock.
    public func waitForSleepers(_ count: Int = 1) async {
        await waitUntil { $0.count >= count }
    }

    /// Suspends until some task is asleep until exactly `deadline`: the code under test has
    /// finished reacting and armed its timer for it.
    public func waitForSleeper(until deadline: Date) async {
        await waitUntil { $0.contains(deadline) }
    }

    /// Returns once `ready` holds, or when the task is cancelled (a test's time limit ends a
    /// wait for a sleeper that never comes, rather than hanging the run).
    private func waitUntil(_ ready: @escaping @Sendable ([Date]) -> Bool) async {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let alreadyReady = state.withLock { state in
                    if ready(state.sleepers.map(\.deadline)) || Task.isCancelled { return true }
                    state.sleeperWaiters.append((id, ready, continuation))
                    return false
                }
                if alreadyReady { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.sleeperWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleeperWaiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
    }
}
