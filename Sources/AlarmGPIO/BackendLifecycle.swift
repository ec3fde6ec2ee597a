import AlarmHardware
import LinuxSupport
import Synchronization

/// What a GPIO backend shares with its thread: the stop request and the wake-up that carries it,
/// the status, and the handshake that tells ``close()`` the lines are released.
final class BackendLifecycle: Sendable {
    /// Readable once a stop or another request is posted; the thread waits on it beside its lines.
    let wake: EventSignal
    private let stopRequested = Atomic<Bool>(false)
    private let currentStatus = Mutex(GPIOStatus.starting)
    private let feed = EventFeed<GPIOStatus>()
    private let finished = Completion()

    private init(device: String) throws(HardwareError) {
        wake = try EventSignal.wakingBackend(device: device)
    }

    /// Starts a backend's thread, running `body` with the lifecycle they share.
    /// - Throws: ``HardwareError`` `.io` when the process has no descriptor or thread to spare.
    static func start(device: String, _ body: @escaping @Sendable (BackendLifecycle) -> Void) throws(HardwareError) -> BackendLifecycle {
        let lifecycle = try BackendLifecycle(device: device)
        let created = DetachedThread.start { body(lifecycle) }
        guard created == 0 else { throw HardwareError(.io, device: device, errno: created) }
        return lifecycle
    }

    var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }

    /// Asks the thread to release its lines and end, and wakes it.
    func requestStop() {
        if !stopRequested.exchange(true, ordering: .acquiringAndReleasing) {
            wake.signal()
        }
    }

    var status: GPIOStatus { currentStatus.withLock { $0 } }

    func statusUpdates() -> AsyncStream<GPIOStatus> {
        feed.subscribe()
    }

    /// Records `status` and sends it if it differs from the last one, so a line that stays
    /// missing is reported once, not at every retry.
    func report(_ status: GPIOStatus) {
        let changed = currentStatus.withLock { current in
            defer { current = status }
            return current != status
        }
        if changed { feed.send(status) }
    }

    /// Requests a stop and suspends until the thread has released everything.
    func stop() async {
        requestStop()
        await finished.wait()
    }

    /// Called once by the thread when it has released its lines and is about to end.
    func markFinished() {
        report(.closed)
        finished.complete()
    }
}
