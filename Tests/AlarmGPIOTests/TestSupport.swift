@testable import AlarmGPIO
import AlarmHardware
import Testing

/// Suspends until `status()` satisfies `condition`, watching `updates` (subscribed before the
/// first look, so no change slips between). Returns the status that did.
@discardableResult
func awaitStatus(
    _ updates: AsyncStream<GPIOStatus>, current status: () -> GPIOStatus,
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: (GPIOStatus) -> Bool
) async -> GPIOStatus? {
    let now = status()
    if condition(now) { return now }
    for await update in updates where condition(update) {
        return update
    }
    Issue.record("status updates ended", sourceLocation: sourceLocation)
    return nil
}

extension GPIODButtonInput {
    /// Suspends until ``status`` satisfies `condition`.
    @discardableResult
    func awaitStatus(
        sourceLocation: SourceLocation = #_sourceLocation, _ condition: (GPIOStatus) -> Bool
    ) async -> GPIOStatus? {
        await AlarmGPIOTests.awaitStatus(statusUpdates(), current: { status }, sourceLocation: sourceLocation, condition)
    }
}

extension GPIODIndicator {
    /// Suspends until ``status`` satisfies `condition`.
    @discardableResult
    func awaitStatus(
        sourceLocation: SourceLocation = #_sourceLocation, _ condition: (GPIOStatus) -> Bool
    ) async -> GPIOStatus? {
        await AlarmGPIOTests.awaitStatus(statusUpdates(), current: { status }, sourceLocation: sourceLocation, condition)
    }
}

extension GPIOStatus {
    var failure: HardwareError? {
        if case .failed(let error) = self { return error }
        return nil
    }
}

extension AsyncStream.Iterator where Element == FakeGPIO.Event {
    /// The next event that is not a read-back (reads are checked where they matter).
    mutating func nextIgnoringReads() async -> FakeGPIO.Event? {
        while let event = await next() {
            if case .read = event { continue }
            return event
        }
        return nil
    }
}

extension Duration {
    /// `seconds` as a duration with millisecond precision, for readable timestamps.
    static func at(_ seconds: Double) -> Duration { .milliseconds(Int64((seconds * 1000).rounded())) }
}
