import AlarmHardware
import LinuxSupport
import Synchronization

/// What a GPIO backend shares with its thread: the stop request and the wake-up that carries it,
/// the status, and the handshake that tells ``close()`` the lines are released.
final class BackendLifecycle: Sendable {
    /// Readable once a stop or another request is posted; the thread waits on it beside its lines.
    let wake: EventSignal
    private let stopRequested = Atomic<Bool>(false)
    private let state = Mutex(State())
    private let feed = EventFeed<GPIOStatus>()

    private struct State {
        var status = GPIOStatus.starting
        var finished = false
        var finishWaiters: [CheckedContinuation<Void, Never>] = []
    }

    init(device: String) throws(HardwareError) {
        wake = try EventSignal.wakingBackend(device: device)
    }

    var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }

    /// Asks the thread to release its lines and end, and wakes it.
    func requestStop() {
        if !stopRequested.exchange(true, ordering: .acquiringAndReleasing) {
            wake.signal()
        }
    }

    var status: GPIOStatus { state.withLock { $0.status } }

    func statusUpdates() -> AsyncStream<GPIOStatus> {
        feed.subscribe()
    }

    /// Records `status` and sends it if it differs from the last one, so a line that stays
    /// missing is reported once, not at every retry.
    func report(_ status: GPIOStatus) {
        let changed = state.withLock { state in
            defer { state.status = status }
            return state.status != status
        }
        if changed { feed.send(status) }
    }

    /// Requests a stop and suspends until the thread has released everything.
    func stop() async {
        requestStop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if !state.finished { state.finishWaiters.append(continuation) }
                return state.finished
            }
            if done { continuation.resume() }
        }
    }

    /// Called once by the thread when it has released its lines and is about to end.
    func markFinished() {
        report(.closed)
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.finishWaiters = [] }
            return state.finishWaiters
        }
        waiters.forEach { $0.resume() }
    }
}
