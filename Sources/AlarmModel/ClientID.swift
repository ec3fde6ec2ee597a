/// Who owns an alarm: a local user, identified by uid.
///
/// Socket clients are identified by their peer credentials (`SO_PEERCRED`); an in-process manager
/// acts for the uid it is given. Each client sees and changes only its own alarms.
public struct ClientID: RawRepresentable, Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    public static func < (lhs: ClientID, rhs: ClientID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "uid \(rawValue)" }
}
