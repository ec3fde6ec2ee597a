import AlarmModel
import FoundationEssentials

/// What the daemon's `status` operation returns and `alarmctl status` shows: the daemon, the
/// clock, the alarms and each part of the board.
///
/// The device's parts and clock are everyone's to see; the alarm figures are the asking client's
/// own, or every client's for an administrator (``scope`` says which).
public struct StatusReport: Codable, Hashable, Sendable {
    /// Whose alarms ``alarms``, ``alerting`` and ``nextAlarm`` count.
    public enum Scope: String, Codable, Hashable, Sendable {
        /// Every client's: what the device rings, shown to administrators.
        case device
        /// Only the asking client's own.
        case client
    }

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
    /// Where the clock's time came from (`nil` from a daemon that does not say).
    public var timeSource: TimeSource?
    /// When that source last vouched for the time (see ``TimeSourceStatus/confirmedAt``).
    public var timeConfirmedAt: Date?
    public var timeZone: String
    public var scope: Scope
    /// How many alarms exist.
    public var alarms: Int
    /// How many of them ring now.
    public var alerting: Int
    /// When the scheduled alarm due first rings.
    public var nextAlarm: Date?
    /// When the scheduled alarms ring, soonest first, each instant once, at most 16 (`nil` from
    /// a daemon that does not say): the MQTT bridge's pre-alarm events are planned from these.
    public var upcomingAlarms: [Date]?
    public var parts: [Part]
    /// What the sunrise light shows now, 0 to 1 (`nil`: no light, or not known yet).
    public var light: Double?

    public init(
        version: String, board: String, startedAt: Date, clockTrusted: Bool, timeZone: String, scope: Scope,
        alarms: Int, alerting: Int, nextAlarm: Date?, parts: [Part], time: TimeSourceStatus? = nil, light: Double? = nil,
        upcomingAlarms: [Date]? = nil
    ) {
        self.light = light
        self.upcomingAlarms = upcomingAlarms
        self.timeSource = time?.source
        self.timeConfirmedAt = time?.confirmedAt
        self.version = version
        self.board = board
        self.startedAt = startedAt
        self.clockTrusted = clockTrusted
        self.timeZone = timeZone
        self.scope = scope
        self.alarms = alarms
        self.alerting = alerting
        self.nextAlarm = nextAlarm
        self.parts = parts
    }
}
