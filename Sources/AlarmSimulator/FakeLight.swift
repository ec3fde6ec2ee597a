import AlarmHardware
import Synchronization

/// A sunrise light that remembers its output, and every output it was set to.
public final class FakeLight: DimmableLight, FakePart, Sendable {
    private let state = Mutex<(output: Double, history: [Double], nextFailure: HardwareError?)>((0, [], nil))
    private let feed = EventFeed<Double>()

    public init() {}

    /// The output last set, 0 to 1.
    public var output: Double { state.withLock { $0.output } }
    /// Every output set, in order (repeats included).
    public var history: [Double] { state.withLock { $0.history } }

    public func events() -> AsyncStream<Double> { feed.subscribe() }

    /// Makes the next ``setOutput(_:)`` fail with `error`, the output as it was.
    public func failNextSet(with error: HardwareError) {
        state.withLock { $0.nextFailure = error }
    }

    public func leftovers() -> [String] {
        state.withLock { $0.nextFailure }.map { ["failNextSet(\($0)) was armed but the light was never set"] } ?? []
    }

    public func setOutput(_ output: Double) async throws {
        try state.withLock { state in
            if let failure = state.nextFailure {
                state.nextFailure = nil
                throw failure
            }
            state.output = output
            state.history.append(output)
        }
        feed.send(output)
    }
}
