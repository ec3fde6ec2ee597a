/// The hours the bedroom is dark (`22:00-06:30`): the LED shows nothing but a fault, and a press
/// on the dark display only lights it for the backlight's time (a sleepy hand changes no alarm);
/// presses while it is lit act as by day. An alert and a question take the device as always.
public struct NightHours: Hashable, Sendable, CustomStringConvertible {
    public var start: CivilTime
    public var end: CivilTime

    public init(start: CivilTime, end: CivilTime) {
        self.start = start
        self.end = end
    }

    /// Parses `HH:MM-HH:MM`; `nil` when malformed or when both ends are the same.
    public init?(_ text: String) {
        let ends = text.split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let start = CivilTime(String(ends[0]).trimmingSpaces), let end = CivilTime(String(ends[1]).trimmingSpaces),
              start != end else { return nil }
        self.init(start: start, end: end)
    }

    /// Whether `time` of day is within the night, which may run over midnight.
    public func contains(_ time: CivilTime) -> Bool {
        start < end ? (start <= time && time < end) : (time >= start || time < end)
    }

    public var description: String {
        "\(start.description.prefix(5))-\(end.description.prefix(5))"
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
