import AlarmTime
import FoundationEssentials
import Glibc
import Synchronization

/// How long a connection may take over each part of its life before it is closed.
public struct HTTPTimeouts: Sendable {
    /// Waiting for the first byte of a request (a keep-alive connection between requests).
    public var idle: Duration = .seconds(60)
    /// From a request's first byte until its head and body have all arrived (408 after).
    public var request: Duration = .seconds(10)
    /// Writing one response, or one event of a stream, to a client that does not read.
    public var write: Duration = .seconds(30)
    /// After a refusal, reading what the client still sends so that it sees the answer
    /// before the connection is reset.
    public var linger: Duration = .seconds(2)

    public init() {}
}

/// The open connections of the page server: how many may be open, which is closed to make room,
/// and the deadline each one is held to.
///
/// At most `capacity` connections are open, below the process's file limit. When one more
/// arrives, an idle connection is closed to make room: one waiting for a request or still
/// reading one (a slow sender holds no slot for long). It is one of the peer address holding the
/// most connections, so one host's flood closes its own first, whatever state they are in; of
/// that address's, first one already refused, then one that never sent anything, then one
/// part-way through a request, and last one a browser keeps open after its answers; and of
/// those the oldest. A connection handling a request or writing a response is never closed for
/// room; when there is no idle one, the newcomer is closed at once.
///
/// Deadlines are on the monotonic clock of `clock` (``HTTPTimeouts``); one wake-up is armed
/// at a time, for the earliest. A connection past its deadline is shut down (reading, or both
/// ways while it writes), which wakes its task: the task asks ``expired(_:)`` to tell a timeout
/// (answered 408) from a client that went away.
final class ConnectionTable: Sendable {
    enum Phase: Equatable {
        /// Between requests: nothing of the next one has arrived.
        case waiting
        /// Part of a request has arrived.
        case reading
        /// A request is being handled, or a stream waits for its next event.
        case busy
        /// A response or an event is being written.
        case writing
        /// A refusal was sent; what the client still sends is read and dropped.
        case lingering

        var isIdle: Bool { self == .waiting || self == .reading || self == .lingering }
    }

    /// Which idle connections go first for room, lowest first: one already refused; one that
    /// has sent nothing and never had an answer (a held-open socket costs its sender nothing);
    /// one part-way through a request; one kept open after answered requests (a browser's).
    private enum Disposability: Int, Comparable {
        case refused, silent, reading, answered

        static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    struct ID: Hashable, Sendable {
        fileprivate var value: UInt64
    }

    private struct Entry {
        var descriptor: Int32
        var peer: String
        var phase: Phase
        /// When the connection last started something (accepted, a request's first byte, a
        /// response sent), in admission order: the lowest is the oldest.
        var stamp: UInt64
        var deadline: Duration?
        var expired = false
        var evicted = false
        /// Whether a request has been answered on it.
        var answered = false

        var disposability: Disposability {
            switch phase {
            case .lingering: .refused
            case .reading: .reading
            default: answered ? .answered : .silent
            }
        }
    }

    private struct State {
        var entries: [ID: Entry] = [:]
        var connectionsByPeer: [String: Int] = [:]
        var open = 0
        var nextStamp: UInt64 = 0
        var timer: (generation: UInt64, deadline: Duration)?
        var cancelTimer: (@Sendable () -> Void)?
        var timerGeneration: UInt64 = 0
        var roomWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextRoomWaiter: UInt64 = 0
        /// Room waiters whose time ran out before they were stored.
        var roomWaitersDone: Set<UInt64> = []
    }

    let capacity: Int
    let timeouts: HTTPTimeouts
    private let clock: any WallClock
    private let state = Mutex(State())

    init(capacity: Int, timeouts: HTTPTimeouts, clock: any WallClock) {
        self.capacity = capacity
        self.timeouts = timeouts
        self.clock = clock
    }

    /// The connections open now (those closed for room and not yet gone excepted).
    var openCount: Int { state.withLock { $0.open } }

    /// Takes in the connection on `descriptor` from `peer`, waiting for a request; closes an
    /// idle one first if the table is full. `nil` if it is full of busy connections: the caller
    /// closes the newcomer.
    func admit(descriptor: Int32, peer: String) -> ID? {
        let id: ID? = state.withLock { state in
            if state.open >= capacity {
                guard let victim = Self.victim(in: state) else { return nil }
                state.entries[victim]?.evicted = true
                state.open -= 1
                // SAFETY: the entry is removed before its descriptor is closed, and this runs
                // under the same lock, so the descriptor is still that connection's.
                shutdown(state.entries[victim]!.descriptor, Int32(SHUT_RDWR))
            }
            state.nextStamp += 1
            let id = ID(value: state.nextStamp)
            state.entries[id] = Entry(descriptor: descriptor, peer: peer, phase: .waiting, stamp: state.nextStamp)
            state.connectionsByPeer[peer, default: 0] += 1
            state.open += 1
            return id
        }
        if let id { enter(.waiting, id) }
        return id
    }

    /// The idle connection to close for room: one of the peer with the most connections; of
    /// those, the most disposable (``Disposability``); of those, the oldest.
    private static func victim(in state: State) -> ID? {
        var best: (id: ID, disposability: Disposability, peerCount: Int, stamp: UInt64)?
        for (id, entry) in state.entries where entry.phase.isIdle && !entry.evicted {
            let candidate = (id, entry.disposability, state.connectionsByPeer[entry.peer] ?? 0, entry.stamp)
            if let current = best {
                let better = candidate.2 != current.peerCount ? candidate.2 > current.peerCount
                    : candidate.1 != current.disposability ? candidate.1 < current.disposability
                    : candidate.3 < current.stamp
                guard better else { continue }
            }
            best = candidate
        }
        return best?.id
    }

    /// Forgets the connection; call before closing its descriptor.
    func remove(_ id: ID) {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: id) else { return [] }
            if !entry.evicted { state.open -= 1 }
            state.connectionsByPeer[entry.peer, default: 1] -= 1
            if state.connectionsByPeer[entry.peer] == 0 { state.connectionsByPeer[entry.peer] = nil }
            defer { state.roomWaiters = [:] }
            return Array(state.roomWaiters.values)
        }
        waiters.forEach { $0.resume() }
    }

    /// Waits until a connection goes, `seconds` at most, or the task is cancelled (when the
    /// process is out of file descriptors and no connection is idle).
    func waitForRoom(atMost seconds: TimeInterval) async {
        let waiter = state.withLock { state in
            state.nextRoomWaiter += 1
            return state.nextRoomWaiter
        }
        let resume: @Sendable () -> Void = { [weak self] in
            self?.state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let continuation = state.roomWaiters.removeValue(forKey: waiter) else {
                    state.roomWaitersDone.insert(waiter)
                    return nil
                }
                return continuation
            }?.resume()
        }
        let cancelTimer = clock.wake(at: clock.now.addingTimeInterval(seconds)) { _ in resume() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waiting = state.withLock { state in
                    guard state.roomWaitersDone.remove(waiter) == nil else { return false }
                    state.roomWaiters[waiter] = continuation
                    return true
                }
                if !waiting { continuation.resume() }
            }
        } onCancel: {
            resume()
        }
        cancelTimer()
        state.withLock { _ = $0.roomWaitersDone.remove(waiter) }
    }

    /// Closes the oldest idle connection, if any, to free a descriptor; whether one was closed.
    func closeOldestIdle() -> Bool {
        state.withLock { state in
            guard let victim = Self.victim(in: state) else { return false }
            state.entries[victim]?.evicted = true
            state.open -= 1
            shutdown(state.entries[victim]!.descriptor, Int32(SHUT_RDWR))
            return true
        }
    }

    /// Moves the connection to `phase`, with that phase's deadline.
    func enter(_ phase: Phase, _ id: ID) {
        let now = clock.monotonicNow
        let deadline: Duration? = switch phase {
        case .waiting: now + timeouts.idle
        case .reading: now + timeouts.request
        case .busy: nil
        case .writing: now + timeouts.write
        case .lingering: now + timeouts.linger
        }
        let arm: (generation: UInt64, deadline: Duration)? = state.withLock { state in
            guard state.entries[id] != nil else { return nil }
            if phase == .waiting || phase == .reading && state.entries[id]?.phase != .reading {
                state.nextStamp += 1
                state.entries[id]?.stamp = state.nextStamp
            }
            // From handling a request back to waiting: one was answered.
            if phase == .waiting, state.entries[id]?.phase == .busy { state.entries[id]?.answered = true }
            state.entries[id]?.phase = phase
            state.entries[id]?.deadline = deadline
            guard let deadline, state.timer.map({ deadline < $0.deadline }) ?? true else { return nil }
            state.timerGeneration += 1
            state.timer = (state.timerGeneration, deadline)
            return (state.timerGeneration, deadline)
        }
        if let arm { armTimer(arm) }
    }

    /// Whether the connection was shut down because its deadline passed.
    func expired(_ id: ID) -> Bool {
        state.withLock { $0.entries[id]?.expired ?? false }
    }

    /// Arms the one wake-up for `timer`, outside the lock: a clock may call back at once.
    private func armTimer(_ timer: (generation: UInt64, deadline: Duration)) {
        let wall = clock.now.addingTimeInterval(Self.seconds(timer.deadline - clock.monotonicNow))
        let cancel = clock.wake(at: wall) { [weak self] _ in self?.deadlinePassed(generation: timer.generation) }
        let superseded: (@Sendable () -> Void)? = state.withLock { state in
            guard state.timer?.generation == timer.generation else { return cancel }
            defer { state.cancelTimer = cancel }
            return state.cancelTimer
        }
        superseded?()
    }

    /// Shuts down every connection past its deadline and arms the wake-up for the next one.
    private func deadlinePassed(generation: UInt64) {
        let now = clock.monotonicNow
        let arm: (generation: UInt64, deadline: Duration)? = state.withLock { state in
            if state.timer?.generation == generation {
                state.timer = nil
                state.cancelTimer = nil
            }
            var next: Duration?
            for (id, entry) in state.entries where !entry.expired && !entry.evicted {
                guard let deadline = entry.deadline else { continue }
                if deadline <= now {
                    state.entries[id]?.expired = true
                    // SAFETY: as in admit: the descriptor is still this connection's.
                    shutdown(entry.descriptor, Int32(entry.phase == .writing ? SHUT_RDWR : SHUT_RD))
                } else if next.map({ deadline < $0 }) ?? true {
                    next = deadline
                }
            }
            guard let next, state.timer.map({ next < $0.deadline }) ?? true else { return nil }
            state.timerGeneration += 1
            state.timer = (state.timerGeneration, next)
            return (state.timerGeneration, next)
        }
        if let arm { armTimer(arm) }
    }

    /// Stops the wake-up (the server has stopped).
    func stop() {
        let cancel = state.withLock { state in
            defer {
                state.cancelTimer = nil
                state.timer = nil
            }
            return state.cancelTimer
        }
        cancel?()
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
