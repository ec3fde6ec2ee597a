import FoundationEssentials

/// An alarm that alerts once, on a weekly schedule, or after a countdown.
///
/// Mirrors AlarmKit's `Alarm`. An `Alarm` is a snapshot: the engine owns the live state and
/// publishes a fresh list through ``AlarmManager/alarmUpdates`` on every change.
public struct Alarm: Identifiable, Codable, Hashable, Sendable {
    /// The identifier chosen by the client in ``AlarmManager/schedule(id:configuration:)``.
    public typealias ID = UUID

    public var id: UUID
    /// When the alarm alerts; `nil` for a timer, which counts down from the moment it is scheduled.
    public var schedule: Schedule?
    /// The countdowns before the alert and after it (snooze or repeat).
    public var countdownDuration: CountdownDuration?
    /// Where the alarm is in its life.
    public var state: State

    public init(id: UUID, schedule: Schedule?, countdownDuration: CountdownDuration?, state: State) {
        self.id = id
        self.schedule = schedule
        self.countdownDuration = countdownDuration
        self.state = state
    }
}

extension Alarm {
    /// The states of an alarm's life. See docs/how-it-works.md, "Life of an alarm".
    public enum State: String, Codable, Hashable, Sendable, CaseIterable {
        /// Waiting for its fire time (or for the start of its pre-alert countdown).
        case scheduled
        /// Counting down: a timer, a pre-alert countdown, or a snooze.
        case countdown
        /// A countdown that was paused; paused time does not count.
        case paused
        /// Ringing now.
        case alerting
    }

    /// The countdowns around an alert.
    public struct CountdownDuration: Codable, Hashable, Sendable {
        /// The countdown before the alert, in seconds.
        public var preAlert: TimeInterval?
        /// The countdown after an alert (snooze or repeat), in seconds; `nil` means use ``preAlert``.
        public var postAlert: TimeInterval?

        public init(preAlert: TimeInterval?, postAlert: TimeInterval?) {
            self.preAlert = preAlert
            self.postAlert = postAlert
        }
    }

    /// When an alarm alerts.
    public enum Schedule: Codable, Hashable, Sendable {
        /// One absolute instant, blind to time zones.
        case fixed(Date)
        /// A wall time in the device's current time zone, once or weekly.
        case relative(Relative)

        /// A wall time in the device's current time zone.
        public struct Relative: Codable, Hashable, Sendable {
            public var time: Time
            public var repeats: Recurrence

            public init(time: Time, repeats: Recurrence) {
                self.time = time
                self.repeats = repeats
            }

            /// An hour and minute of the day.
            public struct Time: Codable, Hashable, Sendable {
                /// 0 to 23.
                public var hour: Int
                /// 0 to 59.
                public var minute: Int

                public init(hour: Int, minute: Int) {
                    self.hour = hour
                    self.minute = minute
                }
            }

            /// How often a relative alarm repeats.
            public enum Recurrence: Codable, Hashable, Sendable {
                /// Once, on the next day the time occurs.
                case never
                /// Every week on these days.
                case weekly([Locale.Weekday])
            }
        }
    }
}
