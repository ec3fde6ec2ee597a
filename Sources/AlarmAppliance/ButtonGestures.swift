import AlarmHardware

/// What a person did with a button: the appliance acts on gestures, not on edges.
public enum ButtonGesture: Hashable, Sendable {
    /// Pressed and released before the long-press time.
    case shortPress(Button)
    /// Held down for the long-press time; reported at that moment, while still held.
    case longPress(Button)
    /// STOP and SNOOZE held down together for the long-press time; reported at that moment. No
    /// alarm uses it, so it answers yes to a question on the display: a hand fumbling for the
    /// alarm presses one button, not both for two seconds.
    case bothHeld
}

/// Classifies debounced button events into short and long presses, and both buttons held.
///
/// A pure stage driven by the events' timestamps and by the appliance's clock: while a button is
/// held, ``nextDeadline`` says when it becomes a long press, and the appliance calls
/// ``deadlineReached(at:)`` then (one wake-up, no polling). A long press is reported once, when
/// the time is reached; its release reports nothing more. Each press yields at most one gesture.
///
/// Once both buttons are down together (neither having made a long press yet), the two presses
/// are one attempt at ``ButtonGesture/bothHeld``: held long enough together they report it, and
/// otherwise nothing at all, so letting go of one early is not taken as a press of either.
public struct ButtonGestures: Sendable {
    /// How long a button must be held to make a long press: long enough for STOP's cancel
    /// gesture that a sleepy fumble is not one.
    public let longPressDuration: Duration
    private var pressedAt: [Button: Duration] = [:]
    /// Held buttons whose long press was already reported: their release reports nothing.
    private var longPressReported: Set<Button> = []
    /// The presses that make the current attempt at holding both, until each is released.
    private var bothPresses: Set<Button> = []
    private var bothHeldReported = false

    public init(longPressDuration: Duration = .seconds(2)) {
        self.longPressDuration = longPressDuration
    }

    /// When a held button turns into a long press, or both held into ``ButtonGesture/bothHeld``.
    public var nextDeadline: Duration? {
        var deadlines = pressedAt.filter { !longPressReported.contains($0.key) && !bothPresses.contains($0.key) }
            .values.map { $0 + longPressDuration }
        if let both = bothHeldDeadline { deadlines.append(both) }
        return deadlines.min()
    }

    /// While both buttons of an attempt are down and it was not reported: when it will be.
    private var bothHeldDeadline: Duration? {
        guard !bothHeldReported, bothPresses.count == Button.allCases.count else { return nil }
        return bothPresses.compactMap { pressedAt[$0] }.max().map { $0 + longPressDuration }
    }

    /// Feeds one debounced event; returns the gestures it completes.
    public mutating func handle(_ event: ButtonEvent) -> [ButtonGesture] {
        switch event.edge {
        case .pressed:
            // A second press without a release (an event was lost) starts over.
            pressedAt[event.button] = event.timestamp
            longPressReported.remove(event.button)
            bothPresses.remove(event.button)
            let others = Button.allCases.filter { $0 != event.button }
            if bothPresses.isEmpty, others.allSatisfy({ pressedAt[$0] != nil && !longPressReported.contains($0) }) {
                bothPresses = Set(Button.allCases)
                bothHeldReported = false
            }
            return []
        case .released:
            guard let downAt = pressedAt.removeValue(forKey: event.button) else { return [] }
            if bothPresses.remove(event.button) != nil {
                if bothPresses.isEmpty { bothHeldReported = false }
                return []
            }
            guard longPressReported.remove(event.button) == nil else { return [] }
            if event.timestamp - downAt >= longPressDuration {
                return [.longPress(event.button)]  // the deadline was not handled in time
            }
            return [.shortPress(event.button)]
        }
    }

    /// Reports the gestures due at `now` (monotonic time); harmless early or twice.
    public mutating func deadlineReached(at now: Duration) -> [ButtonGesture] {
        var gestures: [ButtonGesture] = []
        if let both = bothHeldDeadline, now >= both {
            bothHeldReported = true
            gestures.append(.bothHeld)
        }
        for button in Button.allCases where !longPressReported.contains(button) && !bothPresses.contains(button) {
            guard let downAt = pressedAt[button], now - downAt >= longPressDuration else { continue }
            longPressReported.insert(button)
            gestures.append(.longPress(button))
        }
        return gestures
    }
}
