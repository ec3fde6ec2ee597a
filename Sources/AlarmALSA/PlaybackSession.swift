import AlarmHardware
import Glibc
import LinuxSupport
import Synchronization

/// One playback, shared by the async side (`play`, `prepare`, `stop`) and its writer thread.
///
/// The PCM handle itself is not here: it never leaves the writer thread. What crosses threads is
/// a stop flag, an eventfd that wakes the writer out of `poll` at once, and handshakes: a
/// prepared playback waits with the device open for its ``Go`` (from `play`), the writer reports
/// when writing has begun (or why it could not) and when the device is closed.
final class PlaybackSession: Sendable {
    /// How a playback plays, given when it is started: at once by `play`, or later to a playback
    /// `prepare` opened ahead of time.
    struct Go: Sendable {
        var gain: GainRamp
        var looping: Bool
    }

    /// Readable once a stop (or a prepared playback's go) is requested; the writer polls it beside
    /// the PCM's descriptors.
    let wake: EventSignal
    /// What a prepared playback opened the device for; `nil` for one `play` started.
    let preparedSource: SoundSource?
    private let stopRequested = Atomic<Bool>(false)
    private let state: Mutex<State>

    private struct State {
        var go: Go?
        /// A prepared playback that stopped waiting for its go (its time ran out, or the device
        /// would not open): it can no longer be claimed.
        var abandoned = false
        var start = Start.pending(nil)
        var finished = false
        var finishWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private enum Start {
        case pending(CheckedContinuation<Void, any Error>?)
        case reported(HardwareError?)
    }

    /// A playback that starts as soon as the device is open (`go`), or a prepared one that opens
    /// the device for `preparedSource` and waits for ``claim(_:)``.
    /// - Throws: ``HardwareError`` `.io` naming `device` if no eventfd can be had.
    private init(device: String, go: Go?, preparedSource: SoundSource?) throws(HardwareError) {
        guard let wake = EventSignal() else { throw HardwareError(.io, device: device, errno: errno) }
        self.wake = wake
        self.preparedSource = preparedSource
        state = Mutex(State(go: go))
    }

    /// A playback `play` starts: it writes as soon as the device is open.
    static func playing(device: String, _ go: Go) throws(HardwareError) -> PlaybackSession {
        try PlaybackSession(device: device, go: go, preparedSource: nil)
    }

    /// A playback `prepare` starts: it opens the device for `source` and waits for a claim.
    static func prepared(device: String, for source: SoundSource) throws(HardwareError) -> PlaybackSession {
        try PlaybackSession(device: device, go: nil, preparedSource: source)
    }

    var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }

    /// Asks the writer to stop and wakes it; it drops and closes the PCM on its own thread.
    func requestStop() {
        if !stopRequested.exchange(true, ordering: .acquiringAndReleasing) {
            wake.signal()
        }
    }

    /// Hands a prepared playback how to play and wakes it; `false` if it can no longer be
    /// claimed (claimed already, given up, stopped or ended): the caller starts a playback of its own.
    func claim(_ go: Go) -> Bool {
        let claimed = state.withLock { state in
            guard state.go == nil, !state.abandoned, !state.finished, !isStopRequested else { return false }
            state.go = go
            return true
        }
        if claimed { wake.signal() }
        return claimed
    }

    /// Whether the writer has closed the device (or never opened it).
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Whether a prepared playback still waits for its claim.
    var isWaitingForClaim: Bool {
        state.withLock { $0.go == nil && !$0.abandoned && !$0.finished }
    }

    /// On the writer thread, with the device open: the go, at once for a playback `play` started;
    /// for a prepared one, when it is claimed. `nil` when a stop comes first or nobody claims it
    /// before `deadline` (CLOCK_MONOTONIC seconds); it is then abandoned and can no longer be claimed.
    func waitForGo(until deadline: Double) -> Go? {
        while true {
            if isStopRequested { return nil }
            if let go = state.withLock({ $0.go }) { return go }
            let remaining = deadline - monotonicSeconds()
            if remaining <= 0 { return abandonUnlessClaimed() }
            if sleepUntilWoken(seconds: remaining) {
                // A claim's wake-up, read so later waits sleep again. A stop's would be read too,
                // but the stop flag is set before its signal and is checked at the top.
                wake.drain()
            }
        }
    }

    /// On the writer thread: sleeps up to `seconds` (at least a millisecond), or until a stop or
    /// a claim wakes it; whether it was woken.
    func sleepUntilWoken(seconds: Double) -> Bool {
        var descriptor = pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, Int32(max((seconds * 1000).rounded(.up), 1))) > 0
    }

    /// Gives up waiting for a claim: `nil` (abandoned) unless a claim came first, then its go.
    func abandonUnlessClaimed() -> Go? {
        state.withLock { state in
            if state.go == nil { state.abandoned = true }
            return state.go
        }
    }

    /// Requests a stop and suspends until the device is closed.
    func stop() async {
        requestStop()
        await finished()
    }

    /// Suspends until writing has begun, and throws what kept it from beginning. A playback that
    /// was stopped before it began returns normally: it began and ended at once.
    func started() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let reported = state.withLock { state -> Start? in
                if case .reported = state.start { return state.start }
                state.start = .pending(continuation)
                return nil
            }
            if case .reported(let failure) = reported {
                if let failure { continuation.resume(throwing: failure) } else { continuation.resume() }
            }
        }
    }

    /// Reports that writing began (`nil`) or could not. Only the first report counts; returns
    /// whether this one did.
    @discardableResult
    func reportStart(_ failure: HardwareError?) -> Bool {
        let outcome = state.withLock { state -> (counted: Bool, waiter: CheckedContinuation<Void, any Error>?) in
            guard case .pending(let waiter) = state.start else { return (false, nil) }
            state.start = .reported(failure)
            return (true, waiter)
        }
        if let waiter = outcome.waiter {
            if let failure { waiter.resume(throwing: failure) } else { waiter.resume() }
        }
        return outcome.counted
    }

    /// Suspends until the writer has closed the device (or never opened it).
    func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if !state.finished { state.finishWaiters.append(continuation) }
                return state.finished
            }
            if done { continuation.resume() }
        }
    }

    /// Called once by the writer when the device is closed; releases everyone waiting.
    func markFinished() {
        reportStart(nil)
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.finishWaiters = [] }
            return state.finishWaiters
        }
        waiters.forEach { $0.resume() }
    }
}

/// CLOCK_MONOTONIC in seconds: the writer's deadlines and pacing.
func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}
