import AlarmHardware
import Synchronization

/// An indicator LED that remembers the pattern it shows.
public final class FakeIndicator: Indicator, Sendable {
    public let hasColor: Bool
    private let state = Mutex<(pattern: IndicatorPattern, nextFailure: HardwareError?)>((.off, nil))
    private let feed = EventFeed<IndicatorPattern>()

    public init(hasColor: Bool = false) {
        self.hasColor = hasColor
    }

    /// What the LED shows now.
    public var pattern: IndicatorPattern { state.withLock { $0.pattern } }

    /// Every pattern shown from now on.
    public func events() -> AsyncStream<IndicatorPattern> { feed.subscribe() }

    /// Makes the next ``show(_:)`` fail with `error`, leaving the pattern as it was.
    public func failNextShow(with error: HardwareError) {
        state.withLock { $0.nextFailure = error }
    }

    public func show(_ pattern: IndicatorPattern) async throws {
        try state.withLock { state in
            if let failure = state.nextFailure {
                state.nextFailure = nil
                throw failure
            }
            state.pattern = pattern
        }
        feed.send(pattern)
    }
}
