import FoundationEssentials

/// How a wall-clock reading maps onto instants in a zone.
public enum LocalTimeResolution: Hashable, Sendable {
    /// The reading occurs exactly once.
    case unique(Date)
    /// The reading falls into a gap (clocks jumped forward over it) and never occurs.
    ///
    /// `shifted` interprets the reading with the offset in force before the gap, which is the reading
    /// moved later by the gap's length (02:30 in a 02:00→03:00 gap becomes 03:30 new time).
    /// `transition` is the instant the clocks jumped.
    case skipped(shifted: Date, transition: Date)
    /// The reading occurs twice (clocks were set back over it); `earlier < later`.
    case repeated(earlier: Date, later: Date)

    /// The instant an alarm set for this reading fires: the only one, the shifted one for a gap,
    /// or the first of a repeated pair so that an alarm never rings twice.
    public var alarmInstant: Date {
        switch self {
        case .unique(let instant): instant
        case .skipped(let shifted, _): shifted
        case .repeated(let earlier, _): earlier
        }
    }
}
