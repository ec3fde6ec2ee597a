import AlarmHardware
import AlarmTime
import Synchronization

/// Buttons pressed by a test or by the simulator's keyboard, stamped with the clock's monotonic
/// time (``ManualWallClock`` in tests, ``ScaledWallClock`` in `alarmd --simulate`).
///
/// ```swift
/// let buttons = FakeButtonInput(clock: clock)
/// buttons.press(.snooze); buttons.release(.snooze)   // a short press
/// buttons.press(.stop); clock.advance(by: 2); buttons.release(.stop)   // a long press
/// ```
/// Like a real backend it reports debounced edges only; chatter is the backend's business
/// (see `ButtonDebouncer`).
public final class FakeButtonInput: ButtonInput, FakePart, Sendable {
    private let clock: any WallClock
    private let feed = EventFeed<ButtonEvent>()
    private let unheard = Mutex<[ButtonEvent]>([])

    public init(clock: any WallClock) {
        self.clock = clock
    }

    public func events() -> AsyncStream<ButtonEvent> {
        feed.subscribe()
    }

    public func press(_ button: Button) {
        send(ButtonEvent(button, .pressed, at: clock.monotonicNow))
    }

    public func release(_ button: Button) {
        send(ButtonEvent(button, .released, at: clock.monotonicNow))
    }

    /// Sends an event as it is, for timestamps a test wants exactly.
    public func send(_ event: ButtonEvent) {
        if !feed.send(event) { unheard.withLock { $0.append(event) } }
    }

    /// Presses and releases sent while nothing listened to ``events()``.
    public func leftovers() -> [String] {
        unheard.withLock { $0 }.map { "\($0.button) \($0.edge) at \($0.timestamp) was sent while nothing listened" }
    }
}
