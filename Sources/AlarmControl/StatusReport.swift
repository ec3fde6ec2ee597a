import FoundationEssentials

/// What the daemon's `status` operation returns and `alarmctl status` shows: the daemon, the
/// clock, the alarms and each part of the board.
public struct StatusReport: Codable, Hashable, Sendable {
    public struct Part: Codable, Hashable, Sendable {
        public var name: String
        /// `ok`, `fault` or `starting`.
        public var state: String
        public var detail: String?

        public init(name: String, state: String, detail: String? = nil) {
            self.name = name
            self.state = state
            self.detail = detail
        }
    }

    public var version: String
    public var board: String
    public var startedAt: Date
    public var clockTrusted: Bool
    public var timeZone: String
    public var alarms: Int
    public var alerting: Int
    public var nextAlarm: Date?
    public var parts: [Part]

    public init(
        version: String, board: String, startedAt: Date, clockTrusted: Bool, timeZone: String, alarms: Int,
        alerting: Int, nextAlarm: Date?, parts: [Part]
    ) {
        self.version = version
        self.board = board
        self.startedAt = startedAt
        self.clockTrusted = clockTrusted
        self.timeZone = timeZone
        self.alarms = alarms
        self.alerting = alerting
        self.nextAlarm = nextAlarm
        self.parts = parts
    }
}
