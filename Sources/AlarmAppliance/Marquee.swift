import AlarmHardware

/// Scrolls a text that is longer than its field, as a marquee a sleepy eye can follow: it holds
/// the start for ``hold`` seconds, moves one character every ``step`` seconds until the end shows,
/// holds the end, then jumps back to the start.
///
/// Pure: the window depends only on how long the text has been shown, and the result says when it
/// next changes, so the appliance wakes for each step and never polls.
public enum Marquee {
    /// Seconds the start and the end of the text stay still.
    public static let hold = 1.5
    /// Seconds per character while it moves.
    public static let step = 0.4

    /// The `width` codes of `codes` shown `elapsed` seconds after the text appeared (padded with
    /// spaces when it fits), and the seconds from `elapsed` until that changes: `nil` when the
    /// text fits and never moves.
    public static func window(_ codes: [UInt8], width: Int, elapsed: Double) -> (codes: [UInt8], nextChange: Double?) {
        guard width > 0 else { return ([], nil) }
        guard codes.count > width else {
            return (codes + Array(repeating: HD44780Text.space, count: width - codes.count), nil)
        }
        let steps = codes.count - width
        let period = hold + Double(steps - 1) * step + hold
        var sinceCycleStart = max(elapsed, 0).truncatingRemainder(dividingBy: period)
        // Date arithmetic lands a hair short of the announced wrap: that is the wrap.
        if period - sinceCycleStart < 1e-6 { sinceCycleStart = 0 }
        let offset: Int
        let changesAt: Double
        if sinceCycleStart < hold - 1e-6 {
            (offset, changesAt) = (0, hold)
        } else {
            // A hair of tolerance: at exactly an announced change, rounding must not land on the
            // step before it (which would announce the same change again, a zero-length sleep).
            let moved = 1 + Int(((sinceCycleStart - hold) / step + 1e-6).rounded(.down))
            if moved < steps {
                (offset, changesAt) = (moved, hold + Double(moved) * step)
            } else {
                (offset, changesAt) = (steps, period)
            }
        }
        return (Array(codes[offset..<offset + width]), max(changesAt - sinceCycleStart, 0.001))
    }
}
