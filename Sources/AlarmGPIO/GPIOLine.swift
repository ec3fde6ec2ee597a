/// A GPIO line on a chip, as a board profile names it: by the line's name in the device tree
/// (`"GPIO17"` on a Raspberry Pi) or by its offset on the chip.
public enum GPIOLineSelector: Hashable, Sendable, CustomStringConvertible {
    case name(String)
    case offset(UInt32)

    /// The name, or the offset in decimal, as errors show it.
    public var description: String {
        switch self {
        case .name(let name): name
        case .offset(let offset): "\(offset)"
        }
    }
}

/// The internal resistor of an input line.
public enum GPIOBias: String, Hashable, Sendable, CaseIterable {
    /// Leave it as it is (set by firmware or the device tree).
    case asIs
    /// No pull: the button circuit has its own resistor.
    case disabled
    /// Pulled up: a button to ground reads low when pressed (so the line is active-low).
    case pullUp
    /// Pulled down: a button to 3.3 V reads high when pressed.
    case pullDown
}
