import CLinuxSupport
import FlyingSocks
import Glibc
import LinuxSupport
import Synchronization

/// FlyingFox's socket pool with `epoll` on a thread of our own.
///
/// FlyingFox's own pool waits in `epoll_wait` on a `DispatchQueue`, and any job on libdispatch's
/// pool starts its once-a-second monitor for the life of the process (measured: 60 context
/// switches a minute, idle). Here one thread sleeps in `epoll_wait` with no timeout, so an idle
/// page server does not wake at all.
final class EpollSocketPool: AsyncSocketPool {
    private struct Waiter {
        var id: UInt64
        var events: Socket.Events
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var epoll: Int32 = -1
        var waiters: [Int32: [Waiter]] = [:]
        /// Waits cancelled before their continuation was stored.
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
        var stopped = false
        /// Why the pool stopped: cancellation, or its thread's `epoll_wait` failing.
        var failure: (any Error)?
        var run: CheckedContinuation<Void, any Error>?
    }

    private let state = Mutex(State())
    private let waker: EventSignal

    init() throws {
        guard let waker = EventSignal() else { throw Self.failure("eventfd") }
        self.waker = waker
    }

    func prepare() async throws {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw Self.failure("epoll_create1") }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: waker.descriptor))
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, waker.descriptor, &event) == 0 else {
            close(epoll)
            throw Self.failure("epoll_ctl")
        }
        state.withLock { $0.epoll = epoll }
        guard DetachedThread.start({ self.waitForEvents(epoll) }) == 0 else {
            throw Self.failure("pthread_create")
        }
    }

    /// Throws `CancellationError` when cancelled, failing every wait still pending; throws the
    /// error that ended it if its thread's `epoll_wait` fails, failing every wait likewise.
    func run() async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let failure: (any Error)? = state.withLock { state in
                    if !state.stopped { state.run = continuation }
                    return state.stopped ? state.failure ?? CancellationError() : nil
                }
                if let failure { continuation.resume(throwing: failure) }
            }
        } onCancel: {
            stop()
        }
    }

    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        let fd = socket.file.rawValue
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let failure: (any Error)? = state.withLock { state in
                    if state.stopped { return state.failure ?? CancellationError() }
                    if state.cancelled.remove(id) != nil { return CancellationError() }
                    state.waiters[fd, default: []].append(Waiter(id: id, events: events, continuation: continuation))
                    if arm(fd, for: state.waiters[fd] ?? [], epoll: state.epoll) { return nil }
                    state.waiters[fd]?.removeAll { $0.id == id }
                    return Self.failure("epoll_ctl")
                }
                if let failure { continuation.resume(throwing: failure) }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                guard let index = state.waiters[fd]?.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.waiters[fd]?.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private static func failure(_ call: String) -> SocketError {
        SocketError.failed(type: call, errno: errno, message: String(cString: strerror(errno)))
    }

    /// Asks for one wake-up for what `waiters` wait for (`EPOLLONESHOT`: the loop re-arms).
    private func arm(_ fd: Int32, for waiters: [Waiter], epoll: Int32) -> Bool {
        var wanted: UInt32 = EPOLLONESHOT.rawValue | EPOLLRDHUP.rawValue
        for waiter in waiters {
            if waiter.events.contains(.read) { wanted |= EPOLLIN.rawValue }
            if waiter.events.contains(.write) { wanted |= EPOLLOUT.rawValue }
        }
        var event = epoll_event(events: wanted, data: epoll_data_t(fd: fd))
        if epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event) == 0 { return true }
        return errno == ENOENT && epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) == 0
    }

    private func stop() {
        fail(CancellationError())
        waker.signal()
    }

    /// Ends every wait pending and the pool's `run` with `error`; later waits fail at once.
    private func fail(_ error: any Error) {
        let (waiters, run): ([Waiter], CheckedContinuation<Void, any Error>?) = state.withLock { state in
            state.stopped = true
            if state.failure == nil { state.failure = error }
            defer {
                state.waiters = [:]
                state.run = nil
            }
            return (state.waiters.values.flatMap { $0 }, state.run)
        }
        waiters.forEach { $0.continuation.resume(throwing: error) }
        run?.resume(throwing: error)
    }

    private func waitForEvents(_ epoll: Int32) {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let count = epoll_wait(epoll, &events, Int32(events.count), -1)
            if count < 0 {
                if errno == EINTR { continue }
                fail(Self.failure("epoll_wait"))
                break
            }
            var ready: [Waiter] = []
            let stopped = state.withLock { state in
                for event in events.prefix(Int(count)) where event.data.fd != waker.descriptor {
                    let fd = event.data.fd
                    var happened: Socket.Events = []
                    let failed = event.events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
                    if failed || event.events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0 { happened.insert(.read) }
                    if failed || event.events & EPOLLOUT.rawValue != 0 { happened.insert(.write) }
                    let waiting = state.waiters.removeValue(forKey: fd) ?? []
                    let (woken, left) = (waiting.filter { !$0.events.isDisjoint(with: happened) },
                                         waiting.filter { $0.events.isDisjoint(with: happened) })
                    ready += woken
                    if !left.isEmpty {
                        state.waiters[fd] = left
                        _ = arm(fd, for: left, epoll: epoll)
                    }
                }
                return state.stopped
            }
            // The socket is ready or failed: FlyingFox's next read or write finds out which.
            ready.forEach { $0.continuation.resume() }
            if stopped { break }
        }
        close(epoll)
    }
}
