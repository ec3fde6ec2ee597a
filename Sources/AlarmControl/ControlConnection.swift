import AlarmProtocol
import AlarmTime
import LinuxSupport
import Synchronization

/// The state of one accepted connection that its session (tasks) and the server's I/O thread
/// share: the output, and what the idle timeout needs to know.
///
/// Tasks only queue bytes, under the lock, which orders the lines of all the connection's tasks;
/// the I/O thread alone writes to and closes the descriptor.
///
/// Two kinds of output, because a client asks for answers but not for events:
/// - Whole lines (``send(_:)``: events, errors, short answers from tasks on the side) count
///   against the output limit: a client that lets them pile up does not read, and is let go.
/// - An answer to a request (``sendAnswer(_:complete:)``) does not count: its writer waits for the
///   socket to drain whenever ``answerWindow`` of it is unwritten, so an answer of any size (every
///   record on the device) reaches a client that reads it, while the daemon holds at most about a
///   window of it per connection. Lines sent meanwhile wait until the answer's line is complete.
///   A client that leaves output unread for the idle timeout is let go too.
final class ControlConnection: Sendable {
    /// Why a connection must close, in the log.
    enum CloseReason: String, Sendable {
        case peerClosed = "peer closed"
        case socketError = "socket error"
        case tooLarge = "line too large"
        case outputOverflow = "client does not read"
        case idle = "idle"
        case serverStopping = "server stopping"
        case unencodableAnswer = "an answer could not be encoded"
    }

    /// An answer's writer waits once this many bytes of it are unwritten, until half are.
    static let answerWindow = 256 * 1024

    private struct State {
        var output: OutputBuffer
        var overflowed = false
        var closeAfterFlush: CloseReason?
        /// Close without writing the rest: an answer was begun and cannot be ended.
        var closeNow: CloseReason?
        var closed = false
        /// An answer is partly queued: whole lines wait in `deferred` so as not to split its line.
        var answerOpen = false
        var deferred: [[UInt8]] = []
        var deferredBytes = 0
        /// The answer's writer, waiting for the socket to drain.
        var roomWaiter: CheckedContinuation<Bool, Never>?
        /// Requests received and not yet answered (including ones waiting for a person).
        var pendingRequests = 0
        var subscriptions = 0
        /// On the server's monotonic clock.
        var lastActivity: Duration
        /// When output was last written, or began to wait: left unread for the idle timeout, the
        /// client does not read.
        var outputSince: Duration

        var isUsable: Bool { !closed && !overflowed && closeNow == nil }
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
        let now = clock.monotonicNow
        state = Mutex(State(output: OutputBuffer(limit: outputLimit), lastActivity: now, outputSince: now))
    }

    // MARK: - From tasks

    /// Queues a line for the I/O thread. A line that would pass the output bound marks the
    /// connection for closing instead: a client that does not read must not make the daemon's
    /// memory grow.
    func send(_ line: [UInt8]) {
        let wake = state.withLock { state -> Bool in
            guard state.isUsable else { return false }
            if state.answerOpen {
                guard state.output.countedCount + state.deferredBytes + line.count <= state.output.limit else {
                    state.overflowed = true
                    return true
                }
                state.deferred.append(line)
                state.deferredBytes += line.count
                return false
            }
            let wasEmpty = state.output.isEmpty
            guard state.output.append(line) else {
                state.overflowed = true
                return true
            }
            if wasEmpty { state.outputSince = clock.monotonicNow }
            // With bytes already waiting, the I/O thread was woken for the first.
            return wasEmpty
        }
        if wake { waker.signal() }
    }

    /// Queues `part` of the answer being written, beyond the output bound; `complete` ends it.
    /// Suspends while ``answerWindow`` of answers is unwritten, until half of it is.
    ///
    /// - Returns: `false` once the connection is closed: the writer stops.
    func sendAnswer(_ part: [UInt8], complete: Bool) async -> Bool {
        let (usable, wake, full) = state.withLock { state -> (Bool, Bool, Bool) in
            guard state.isUsable else { return (false, false, false) }
            let wasEmpty = state.output.isEmpty
            if wasEmpty { state.outputSince = clock.monotonicNow }
            state.output.appendUncounted(part)
            state.answerOpen = !complete
            if complete, !state.deferred.isEmpty {
                // They fitted the bound with what waited then, and what waits has only shrunk.
                for line in state.deferred { _ = state.output.append(line) }
                state.deferred = []
                state.deferredBytes = 0
            }
            return (true, wasEmpty, state.output.uncountedCount > Self.answerWindow)
        }
        if wake { waker.signal() }
        guard usable, full else { return usable }
        return await withCheckedContinuation { continuation in
            let ready: Bool? = state.withLock { state in
                guard state.isUsable else { return false }
                if state.output.uncountedCount <= Self.answerWindow / 2 { return true }
                state.roomWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The answer being written cannot be finished (the rest cannot be encoded): its line cannot be
    /// ended, so the connection closes at once.
    func abandonAnswer() {
        state.withLock { $0.closeNow = $0.closeNow ?? .unencodableAnswer }
        waker.signal()
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
        let (reason, waiter) = state.withLock { state -> (CloseReason?, CheckedContinuation<Bool, Never>?) in
            if let reason = state.closeNow { return (reason, nil) }
            if state.overflowed { return (.outputOverflow, nil) }
            let waiting = state.output.count
            if state.output.write(to: fd) != nil { return (.socketError, nil) }
            if state.output.count < waiting { state.outputSince = clock.monotonicNow }
            var waiter: CheckedContinuation<Bool, Never>?
            if state.output.uncountedCount <= Self.answerWindow / 2 {
                waiter = state.roomWaiter
                state.roomWaiter = nil
            }
            if state.output.isEmpty, let reason = state.closeAfterFlush { return (reason, waiter) }
            return (nil, waiter)
        }
        waiter?.resume(returning: true)
        return reason
    }

    /// Nothing pending and nothing left to write.
    var isQuiescent: Bool { state.withLock { $0.pendingRequests == 0 && $0.output.isEmpty } }

    var hasOutput: Bool { state.withLock { !$0.output.isEmpty || $0.overflowed || $0.closeNow != nil } }

    /// Closes once everything queued so far is written (after a `tooLarge` reply).
    func closeAfterFlush(_ reason: CloseReason) {
        state.withLock { $0.closeAfterFlush = $0.closeAfterFlush ?? reason }
    }

    var isClosing: Bool { state.withLock { $0.closeAfterFlush != nil } }

    /// When the connection times out if nothing happens, and why: output left unwritten for
    /// `timeout` (the client does not read), else `timeout` with no request pending and no
    /// subscription open (a subscriber waits for events, legitimately silent). `nil` for never.
    func idleDeadline(after timeout: Duration?) -> (deadline: Duration, reason: CloseReason)? {
        guard let timeout else { return nil }
        return state.withLock { state in
            if !state.output.isEmpty { return (state.outputSince + timeout, .outputOverflow) }
            return state.pendingRequests == 0 && state.subscriptions == 0 ? (state.lastActivity + timeout, .idle) : nil
        }
    }

    /// The descriptor is closed: later lines are dropped, and an answer's writer stops.
    func markClosed() {
        let waiter = state.withLock { state in
            state.closed = true
            state.output = OutputBuffer(limit: 0)
            state.deferred = []
            state.deferredBytes = 0
            defer { state.roomWaiter = nil }
            return state.roomWaiter
        }
        waiter?.resume(returning: false)
    }
}
