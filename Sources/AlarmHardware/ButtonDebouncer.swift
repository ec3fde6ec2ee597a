/// Turns the raw, chattering edges of a mechanical button into clean presses and releases, from
/// the edges' timestamps (no timers of its own).
///
/// An edge is accepted when it changes the debounced level and comes at least ``interval`` after
/// the last accepted edge; edges inside that window are bounce. The line may settle on the level
/// of a dropped edge (a tap shorter than the window), which would leave a released button looking
/// held, so a dropped edge asks the backend to read the line once at
/// ``confirmationDeadline(for:)`` and pass it to ``confirm(_:level:at:)``. Used by backends whose
/// hardware cannot debounce (libgpiod 1).
public struct ButtonDebouncer: Sendable {
    /// How long after an accepted edge further edges are taken as bounce. Tactile switches settle
    /// within 5-20 ms, and nobody presses twice within 30 ms.
    public let interval: Duration
    private var level: [Button: ButtonEvent.Edge] = [:]
    private var lastAccepted: [Button: Duration] = [:]
    private var unconfirmed: Set<Button> = []

    public init(interval: Duration = .milliseconds(30)) {
        self.interval = interval
    }

    /// Feeds one raw edge; returns the debounced event it produces, if any.
    public mutating func accept(_ raw: ButtonEvent) -> ButtonEvent? {
        let current = level[raw.button] ?? .released
        if let last = lastAccepted[raw.button], raw.timestamp - last < interval {
            // Bounce; the line might end up on this edge's level, so have it read later.
            if raw.edge != current { unconfirmed.insert(raw.button) }
            return nil
        }
        // A second press with no release between: the release was lost (an overflowing event
        // queue), and this is a new press. A second release means nothing.
        guard raw.edge != current || raw.edge == .pressed else { return nil }
        return record(raw)
    }

    /// When the backend should read `button`'s line and call ``confirm(_:level:at:)``; `nil` if no
    /// edge was dropped since the last accepted one.
    public func confirmationDeadline(for button: Button) -> Duration? {
        guard unconfirmed.contains(button), let last = lastAccepted[button] else { return nil }
        return last + interval
    }

    /// The line's level read after ``confirmationDeadline(for:)``; returns the event that puts
    /// the debounced level right, if it was stale.
    public mutating func confirm(_ button: Button, level actual: ButtonEvent.Edge, at timestamp: Duration) -> ButtonEvent? {
        unconfirmed.remove(button)
        guard actual != (level[button] ?? .released) else { return nil }
        return record(ButtonEvent(button, actual, at: timestamp))
    }

    private mutating func record(_ event: ButtonEvent) -> ButtonEvent {
        level[event.button] = event.edge
        lastAccepted[event.button] = event.timestamp
        unconfirmed.remove(event.button)
        return event
    }
}
