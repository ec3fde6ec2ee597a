import AlarmHardware
import FoundationEssentials

/// Whether a part of the board (the sound, the display, the LED) works, and if not, why and when
/// the appliance tries it again. Every change of a part's health goes through the four
/// transitions below.
enum PartHealth: Hashable, Sendable {
    case working
    /// Failed `failures` times in a row, last with `error`; tried again at `retryAt` (`nil`: when
    /// next needed, as the sound is when the next alert begins).
    case failed(HardwareError, retryAt: Date?, failures: Int)

    var fault: HardwareError? {
        if case .failed(let error, _, _) = self { return error }
        return nil
    }

    var retryAt: Date? {
        if case .failed(_, let retryAt, _) = self { return retryAt }
        return nil
    }

    var isWorking: Bool { self == .working }

    /// The part did what was asked. Returns whether it had failed before (a recovery to log).
    @discardableResult
    mutating func recordSuccess() -> Bool {
        defer { self = .working }
        return !isWorking
    }

    /// The part failed at `now`: tried again after the backoff's wait for one more failure in a
    /// row. Returns whether it worked before (a new fault to log).
    @discardableResult
    mutating func recordFailure(_ error: HardwareError, at now: Date, backoff: RetryBackoff) -> Bool {
        let failures: Int
        switch self {
        case .working: failures = 1
        case .failed(_, _, let before): failures = before + 1
        }
        self = .failed(error, retryAt: now.addingTimeInterval(backoff.delay(afterFailures: failures) / .seconds(1)), failures: failures)
        return failures == 1
    }

    /// The part was found failing without a try to repeat (the sound device missing at start, or
    /// gone mid-alert): the fault shows, and the part is tried when next needed.
    mutating func recordFault(_ error: HardwareError) {
        switch self {
        case .working: self = .failed(error, retryAt: nil, failures: 0)
        case .failed(_, _, let failures): self = .failed(error, retryAt: nil, failures: failures)
        }
    }

    /// Nothing needs the part now (the alert it was retried for ended): no more retries, the
    /// fault still shows.
    mutating func cancelRetry() {
        if case .failed(let error, .some, let failures) = self { self = .failed(error, retryAt: nil, failures: failures) }
    }
}
