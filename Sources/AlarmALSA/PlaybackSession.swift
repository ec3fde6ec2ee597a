import AlarmHardware
import Glibc
import Synchronization
internal import CLinuxSupport

/// One playback, shared by the async side (`play`, `stop`) and its writer thread.
///
/// The PCM handle itself is not here: it never leaves the writer thread. What crosses threads is
/// a stop flag, an eventfd that wakes the writer out of `poll` at once, and two handshakes: the
/// writer reports when writing has begun (or why it could not) and when the device is closed.
final class PlaybackSession: Sendable {
    /// Readable once a stop is requested; the writer polls it beside the PCM's descriptors.
    let wakeDescriptor: Int32
    private let stopRequested = Atomic<Bool>(false)
    private let state = Mutex(State())

    private struct State {
        var start = Start.pending(nil)
        var finished = false
        var finishWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private enum Start {
        case pending(CheckedContinuation<Void, any Error>?)
        case reported(HardwareError?)
    }

    /// - Throws: ``HardwareError`` `.io` naming `device` if no eventfd can be had.
    init(device: String) throws(HardwareError) {
        let descriptor = alarmd_eventfd_create()
        guard descriptor >= 0 else { throw HardwareError(.io, device: device, errno: -descriptor) }
        wakeDescriptor = descriptor
    }

    deinit {
        close(wakeDescriptor)
    }

    var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }

    /// Asks the writer to stop and wakes it; it drops and closes the PCM on its own thread.
    func requestStop() {
        if !stopRequested.exchange(true, ordering: .acquiringAndReleasing) {
            _ = alarmd_eventfd_signal(wakeDescriptor)
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
