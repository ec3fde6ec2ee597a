/// The device's two push buttons.
public enum Button: String, Hashable, Sendable, CaseIterable {
    case stop, snooze
}

/// A debounced change of a button, stamped with a monotonic time (the kernel's timestamp for a
/// GPIO line), so gestures are measured on when the edge happened, not when it was read.
public struct ButtonEvent: Hashable, Sendable {
    public enum Edge: Hashable, Sendable {
        case pressed, released
    }

    public var button: Button
    public var edge: Edge
    /// When the edge happened, on the wall clock's monotonic scale (`WallClock.monotonicNow`:
    /// `CLOCK_BOOTTIME` for `SystemWallClock`, the manual clock's in tests); backends convert the
    /// kernel's timestamps to it.
    public var timestamp: Duration

    public init(_ button: Button, _ edge: Edge, at timestamp: Duration) {
        self.button = button
        self.edge = edge
        self.timestamp = timestamp
    }
}

/// Debounced press and release events of the device's buttons.
///
/// Backends: `GPIODButtonInput`, ``FakeButtonInput`` in `AlarmSimulator`.
/// Raw edges stay inside the backend: it debounces (in the kernel on libgpiod 2, with
/// ``ButtonDebouncer`` on libgpiod 1) and reports only clean presses and releases. Long presses
/// are classified by the appliance from the timestamps.
public protocol ButtonInput: Sendable {
    /// A new stream of every button event from now on.
    /// - Important: a stream has one consumer; call again for another.
    func events() -> AsyncStream<ButtonEvent>
}
