import Synchronization

/// Waits for `operation` to finish, or for the calling task to be cancelled, whichever comes
/// first; returns whether the operation finished.
///
/// Swift Testing cancels a test at its time limit, but a plain `await` of something that never
/// happens (a task's value, a continuation nobody resumes) ignores cancellation, and the whole
/// run hangs there. Awaited through this, the test fails at its time limit and the run goes on.
/// The operation itself is cancelled too and left to end on its own.
public func unlessCancelled(_ operation: @escaping @Sendable () async -> Void) async -> Bool {
    let gate = CancellableGate()
    let work = Task {
        await operation()
        gate.open(finished: true)
    }
    return await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            gate.wait(with: continuation)
        }
    } onCancel: {
        work.cancel()
        gate.open(finished: false)
    }
}

/// One continuation, resumed once: by whichever of finishing and cancelling comes first, even
/// when the cancellation comes before the continuation exists.
private final class CancellableGate: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Bool, Never>)
        case opened(Bool)
        case done
    }

    private let state = Mutex(State.idle)

    func wait(with continuation: CheckedContinuation<Bool, Never>) {
        let result: Bool? = state.withLock { state in
            switch state {
            case .idle:
                state = .waiting(continuation)
                return nil
            case .opened(let finished):
                state = .done
                return finished
            case .waiting, .done:
                preconditionFailure("one wait per gate")
            }
        }
        if let result { continuation.resume(returning: result) }
    }

    func open(finished: Bool) {
        let waiting: CheckedContinuation<Bool, Never>? = state.withLock { state in
            switch state {
            case .idle:
                state = .opened(finished)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .opened, .done:
                return nil
            }
        }
        waiting?.resume(returning: finished)
    }
}
