import FoundationEssentials

/// The sound an alert plays.
public enum AlertSound: Codable, Hashable, Sendable {
    /// The device's built-in alarm tone.
    case `default`
    /// A sound file in the device's sounds directory, by file name (for example `"birds.wav"`).
    /// If it cannot be played, the built-in tone plays instead.
    case named(String)
}

extension AlarmManager {
    /// Everything needed to schedule an alarm or a timer.
    ///
    /// - A schedule and no `countdownDuration.preAlert`: an alarm, alerting at its time.
    /// - No schedule and a `preAlert`: a timer, counting down at once.
    /// - Both: an alarm that counts down for `preAlert` before each alert.
    public struct AlarmConfiguration<Metadata: AlarmMetadata>: Sendable {
        public var countdownDuration: Alarm.CountdownDuration?
        public var schedule: Alarm.Schedule?
        public var attributes: AlarmAttributes<Metadata>
        /// Delivered to the app when the alarm is stopped at the device (``LiveActivityIntent``).
        public var stopIntent: (any AlarmIntentConvertible)?
        /// Delivered to the app when the secondary button is pressed and its behaviour is `.custom`.
        public var secondaryIntent: (any AlarmIntentConvertible)?
        public var sound: AlertSound

        public init(
            countdownDuration: Alarm.CountdownDuration? = nil,
            schedule: Alarm.Schedule? = nil,
            attributes: AlarmAttributes<Metadata>,
            stopIntent: (any AlarmIntentConvertible)? = nil,
            secondaryIntent: (any AlarmIntentConvertible)? = nil,
            sound: AlertSound = .default
        ) {
            self.countdownDuration = countdownDuration
            self.schedule = schedule
            self.attributes = attributes
            self.stopIntent = stopIntent
            self.secondaryIntent = secondaryIntent
            self.sound = sound
        }

        /// An alarm that alerts on `schedule`.
        public static func alarm(
            schedule: Alarm.Schedule? = nil,
            attributes: AlarmAttributes<Metadata>,
            stopIntent: (any AlarmIntentConvertible)? = nil,
            secondaryIntent: (any AlarmIntentConvertible)? = nil,
            sound: AlertSound = .default
        ) -> Self {
            Self(
                schedule: schedule, attributes: attributes,
                stopIntent: stopIntent, secondaryIntent: secondaryIntent, sound: sound)
        }

        /// A timer that alerts `duration` seconds from now; its repeat countdown has the same length.
        public static func timer(
            duration: TimeInterval,
            attributes: AlarmAttributes<Metadata>,
            stopIntent: (any AlarmIntentConvertible)? = nil,
            secondaryIntent: (any AlarmIntentConvertible)? = nil,
            sound: AlertSound = .default
        ) -> Self {
            Self(
                countdownDuration: Alarm.CountdownDuration(preAlert: duration, postAlert: duration),
                attributes: attributes, stopIntent: stopIntent, secondaryIntent: secondaryIntent, sound: sound)
        }
    }
}
