import AlarmProtocol
import AlarmTime
import LinuxSupport
import Synchronization

/// The state of one accepted connection that its session (tasks) and the server's I/O thread
/// share: the bounded output, and what the idle timeout needs to know.
///
/// Tasks only queue lines, under the lock, which orders the lines of all the connection's tasks;
/// the I/O thread alone writes to and closes the descriptor.
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
    private let waker: EventSignal
    private let state: Mutex<State>
    private let clock: any WallClock

    init(id: Int, fd: Int32, peer: ControlPeer, outputLimit: Int, waker: EventSignal, clock: any WallClock) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.waker = waker
        self.clock = clock
        state = Mutex(State(output: OutputBuffer(limit: outputLimit), lastActivity: clock.monotonicNow))
    }

    // MARK: - From tasks

    /// Queues a line for the I/O thread. A line that would pass the output bound marks the
    /// connection for closing instead: a client that does not read must not make the daemon's
    /// memory grow.
    func send(_ line: [UInt8]) {
        let wake = state.withLock { state -> Bool in
            guard !state.closed, !state.overflowed else { return false }
            let wasEmpty = state.output.isEmpty
            guard state.output.append(line) else {
                state.overflowed = true
                return true
            }
            // With lines already waiting, the I/O thread was woken for the first.
            return wasEmpty
        }
        if wake { waker.signal() }
    }

    /// A request was answered: the connection may become idle from now.
    func requestFinished() {
        state.withLock { state in
            state.pendingRequests = max(0, state.pendingRequests - 1)
            state.lastActivity = clock.monotonicNow
        }
        waker.signal()
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

    /// The descriptor is closed: later lines are dropped.
    func markClosed() {
        state.withLock { state in
            state.closed = true
            state.output = OutputBuffer(limit: 0)
        }
    }
}
