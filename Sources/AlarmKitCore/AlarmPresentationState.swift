import FoundationEssentials

/// The changing content of an alarm's presentation: which mode it is in and its timing.
///
/// The appliance renders this (with the alarm's ``AlarmPresentation``) on the display.
public struct AlarmPresentationState: Codable, Hashable, Sendable {
    public var alarmID: Alarm.ID
    public var mode: Mode

    public init(alarmID: Alarm.ID, mode: Mode) {
        self.alarmID = alarmID
        self.mode = mode
    }

    /// Alerting, counting down or paused.
    public enum Mode: Codable, Hashable, Sendable {
        case alert(Alert)
        case countdown(Countdown)
        case paused(Paused)

        /// An alert in progress.
        public struct Alert: Codable, Hashable, Sendable {
            /// The local wall time the alert is for (the scheduled time, or when a timer ended).
            public var time: Alarm.Schedule.Relative.Time

            public init(time: Alarm.Schedule.Relative.Time) {
                self.time = time
            }
        }

        /// A running countdown.
        public struct Countdown: Codable, Hashable, Sendable {
            /// The whole length of this countdown, in seconds.
            public var totalCountdownDuration: TimeInterval
            /// Seconds counted before ``startDate`` (before the last pause).
            public var previouslyElapsedDuration: TimeInterval
            /// When the countdown last started or resumed.
            public var startDate: Date
            /// When it reaches zero: `startDate + total - previouslyElapsed`.
            public var fireDate: Date

            public init(
                totalCountdownDuration: TimeInterval,
                previouslyElapsedDuration: TimeInterval,
                startDate: Date,
                fireDate: Date
            ) {
                self.totalCountdownDuration = totalCountdownDuration
                self.previouslyElapsedDuration = previouslyElapsedDuration
                self.startDate = startDate
                self.fireDate = fireDate
            }
        }

        /// A paused countdown.
        public struct Paused: Codable, Hashable, Sendable {
            public var totalCountdownDuration: TimeInterval
            public var previouslyElapsedDuration: TimeInterval

            public init(totalCountdownDuration: TimeInterval, previouslyElapsedDuration: TimeInterval) {
                self.totalCountdownDuration = totalCountdownDuration
                self.previouslyElapsedDuration = previouslyElapsedDuration
            }
        }
    }
}
