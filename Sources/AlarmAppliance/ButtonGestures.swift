import AlarmHardware

/// What a person did with a button: the appliance acts on gestures, not on edges.
public enum ButtonGesture: Hashable, Sendable {
    /// Pressed and released before the long-press time.
    case shortPress(Button)
    /// Held down for the long-press time; reported at that moment, while still held.
    case longPress(Button)
}

/// Classifies debounced button events into short and long presses.
///
/// A pure stage driven by the events' timestamps and by the appliance's clock: while a button is
/// held, ``nextDeadline`` says when it becomes a long press, and the appliance calls
/// ``deadlineReached(at:)`` then (one wake-up, no polling). A long press is reported once, when
/// the time is reached; its release reports nothing more. Each press yields exactly one gesture.
public struct ButtonGestures: Sendable {
    /// How long a button must be held to make a long press: long enough for STOP's cancel
    /// gesture that a sleepy fumble is not one.
    public let longPressDuration: Duration
    private var pressedAt: [Button: Duration] = [:]
    /// Held buttons whose long press was already reported: their release reports nothing.
    private var longPressReported: Set<Button> = []

    public init(longPressDuration: Duration = .seconds(2)) {
        self.longPressDuration = longPressDuration
    }

    /// When a held button turns into a long press, if any is held.
    public var nextDeadline: Duration? {
        pressedAt.filter { !longPressReported.contains($0.key) }.values.map { $0 + longPressDuration }.min()
    }

    /// Feeds one debounced event; returns the gestures it completes.
    public mutating func handle(_ event: ButtonEvent) -> [ButtonGesture] {
        switch event.edge {
        case .pressed:
            // A second press without a release (an event was lost) starts over.
            pressedAt[event.button] = event.timestamp
            longPressReported.remove(event.button)
            return []
        case .released:
            guard let downAt = pressedAt.removeValue(forKey: event.button) else { return [] }
            guard longPressReported.remove(event.button) == nil else { return [] }
            if event.timestamp - downAt >= longPressDuration {
                return [.longPress(event.button)]  // the deadline was not handled in time
            }
            return [.shortPress(event.button)]
        }
    }

    /// Reports the long presses due at `now` (monotonic time); harmless early or twice.
    public mutating func deadlineReached(at now: Duration) -> [ButtonGesture] {
        var gestures: [ButtonGesture] = []
        for button in Button.allCases where !longPressReported.contains(button) {
            guard let downAt = pressedAt[button], now - downAt >= longPressDuration else { continue }
            longPressReported.insert(button)
            gestures.append(.longPress(button))
        }
        return gestures
    }
}
