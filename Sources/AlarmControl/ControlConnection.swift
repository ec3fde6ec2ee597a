import AlarmProtocol
import AlarmTime
import Synchronization

/// The state of one accepted connection that its session (tasks) and the server's I/O thread
/// share: the bounded output, and what the idle timeout needs to know.
///
/// A task's line goes straight to the socket when nothing waits before it (a non-blocking send
/// under the lock, which orders the lines of all the connection's tasks); only what the socket
/// does not take is queued for the I/O thread, which is then woken. The usual answer thus costs
/// no wake-up of the I/O thread: on a virtual machine a cross-thread wake-up is a good part of a
/// round trip. The I/O thread closes the descriptor only after ``markClosed()``, under the same
/// lock, so a task never writes to a number the kernel has handed to another file.
final class ControlConnection: Sendable {
    /// Why a connection must close, in the log.
    enum CloseReason: String, Sendable {
        case peerClosed = "peer closed"
        case socketError = "socket error"
        case tooLarge = "line too large"
        case outputOverflow = "client does not read"
        case idle = "idle"
        case serverStopping = "server stopping"
    }

    private struct State {
        var output: OutputBuffer
        var overflowed = false
        /// The peer shut its side: the I/O thread closes once every answer is written, so it
        /// must hear of each answer.
        var peerDone = false
        var closeAfterFlush: CloseReason?
        var closed = false
        /// Requests received and not yet answered (including ones waiting for a person).
        var pendingRequests = 0
        var subscriptions = 0
        /// On the server's monotonic clock.
        var lastActivity: Duration
    }

    let id: Int
    let peer: ControlPeer
    /// The connected socket, non-blocking; owned (and closed) by the I/O thread.
    private let fd: Int32
    private let waker: Waker
    private let state: Mutex<State>
    private let clock: any WallClock

    init(id: Int, fd: Int32, peer: ControlPeer, outputLimit: Int, waker: Waker, clock: any WallClock) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.waker = waker
        self.clock = clock
        state = Mutex(State(output: OutputBuffer(limit: outputLimit), lastActivity: clock.monotonicNow))
    }

    // MARK: - From tasks

    /// Sends a line to the peer: what the socket does not take at once is queued for the I/O
    /// thread. A line that would pass the output bound marks the connection for closing instead:
    /// a client that does not read must not make the daemon's memory grow.
    func send(_ line: [UInt8]) {
        let wake = state.withLock { state -> Bool in
            guard !state.closed, !state.overflowed else { return false }
            let wasEmpty = state.output.isEmpty
            guard state.output.append(line) else {
                state.overflowed = true
                return true
            }
            // With lines already waiting, the I/O thread was woken for the first and writes this
            // after it; else the socket takes what it can now, and the I/O thread is woken for
            // the rest, or for a failed send (its own write then fails too and closes).
            guard wasEmpty else { return false }
            return state.output.write(to: fd) != nil || !state.output.isEmpty
        }
        if wake { waker.signal() }
    }

    /// A request was answered: the connection may become idle from now.
    ///
    /// The I/O thread is woken only if it waits for this (a peer that shut its side is closed
    /// once answered); its idle timer does not need it, see ``wakeDeadline(after:now:)``.
    func requestFinished() {
        let wake = state.withLock { state -> Bool in
            state.pendingRequests = max(0, state.pendingRequests - 1)
            state.lastActivity = clock.monotonicNow
            return state.peerDone && state.pendingRequests == 0
        }
        if wake { waker.signal() }
    }

    func subscriptionAdded() {
        state.withLock { $0.subscriptions += 1 }
    }

    func subscriptionRemoved() {
        state.withLock { state in
            state.subscriptions = max(0, state.subscriptions - 1)
            state.lastActivity = clock.monotonicNow
        }
        waker.signal()
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    // MARK: - From the I/O thread

    /// Counts a new request unless `limit` are already pending; records the activity either way.
    func admitRequest(limit: Int, now: Duration) -> Bool {
        state.withLock { state in
            state.lastActivity = now
            guard state.pendingRequests < limit else { return false }
            state.pendingRequests += 1
            return true
        }
    }

    /// Sends whatever the socket takes. Returns why the connection must close now, if it must.
    func flush() -> CloseReason? {
        state.withLock { state in
            if state.overflowed { return .outputOverflow }
            if state.output.write(to: fd) != nil { return .socketError }
            if state.output.isEmpty, let reason = state.closeAfterFlush { return reason }
            return nil
        }
    }

    /// Nothing pending and nothing left to write.
    var isQuiescent: Bool { state.withLock { $0.pendingRequests == 0 && $0.output.isEmpty } }

    var hasOutput: Bool { state.withLock { !$0.output.isEmpty || $0.overflowed } }

    /// Closes once everything queued so far is written (after a `tooLarge` reply).
    func closeAfterFlush(_ reason: CloseReason) {
        state.withLock { $0.closeAfterFlush = $0.closeAfterFlush ?? reason }
    }

    var isClosing: Bool { state.withLock { $0.closeAfterFlush != nil } }

    /// When the connection times out if nothing happens: `nil` while a request is pending or a
    /// subscription is open (a subscriber waits for events, legitimately silent).
    func idleDeadline(after timeout: Duration) -> Duration? {
        state.withLock { state in
            state.pendingRequests == 0 && state.subscriptions == 0 ? state.lastActivity + timeout : nil
        }
    }

    /// When the I/O thread must look at this connection's idle timer again at the latest.
    ///
    /// Answering a request does not wake the I/O thread, so while requests are pending it wakes
    /// by `now + timeout`: any answer comes after `now`, so the idle deadline it starts is no
    /// earlier, and the loop then sleeps until the real one. A closed subscription wakes it.
    func wakeDeadline(after timeout: Duration, now: Duration) -> Duration? {
        state.withLock { state in
            if state.pendingRequests > 0 { return now + timeout }
            return state.subscriptions == 0 ? state.lastActivity + timeout : nil
        }
    }

    /// The peer shut its side of the connection (end of stream read).
    func markPeerDone() {
        state.withLock { $0.peerDone = true }
    }

    /// The descriptor is closed: later lines are dropped.
    func markClosed() {
        state.withLock { state in
            state.closed = true
            state.output = OutputBuffer(limit: 0)
        }
    }
}
