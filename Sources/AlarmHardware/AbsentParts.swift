/// The buttons of a board whose button backend could not even start (no thread or descriptor to
/// spare): there will never be a press. Not a test double: this is what the daemon drives in
/// place of the part, so the rest of the device works as it would with the buttons unplugged.
///
/// ```swift
/// let buttons: any ButtonInput = (try? GPIODButtonInput(configuration: configuration)) ?? AbsentButtonInput()
/// ```
public struct AbsentButtonInput: ButtonInput {
    public init() {}

    /// A stream that has already ended: nothing will ever be pressed.
    public func events() -> AsyncStream<ButtonEvent> {
        AsyncStream { $0.finish() }
    }
}

/// The LED of a board whose LED backend could not even start: showing a pattern does nothing
/// and succeeds, since the failure was reported (logged) when the board was opened and the LED
/// is the part that shows other parts' faults.
///
/// ```swift
/// let led: any Indicator = (try? GPIODIndicator(configuration: configuration)) ?? AbsentIndicator()
/// ```
public struct AbsentIndicator: Indicator {
    public init() {}

    /// `false`: there is no light at all.
    public var hasColor: Bool { false }

    /// Does nothing.
    public func show(_ pattern: IndicatorPattern) async throws {}
}
