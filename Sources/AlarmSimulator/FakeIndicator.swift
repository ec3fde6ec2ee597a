import AlarmHardware
import Synchronization

/// An indicator LED that remembers the pattern it shows.
public final class FakeIndicator: Indicator, FakePart, Sendable {
    public let hasColor: Bool
    private let state = Mutex<(pattern: IndicatorPattern, nextFailure: HardwareError?)>((.off, nil))
    private let feed = EventFeed<IndicatorPattern>()

    public init(hasColor: Bool = false) {
        self.hasColor = hasColor
    }

    public var pattern: IndicatorPattern { state.withLock { $0.pattern } }

    public func events() -> AsyncStream<IndicatorPattern> { feed.subscribe() }

    /// Makes the next ``show(_:)`` fail with `error`, leaving the pattern as it was.
    public func failNextShow(with error: HardwareError) {
        state.withLock { $0.nextFailure = error }
    }

    /// A failure armed by ``failNextShow(with:)`` that no show took.
    public func leftovers() -> [String] {
        state.withLock { $0.nextFailure }.map { ["failNextShow(\($0)) was armed but nothing was shown"] } ?? []
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
