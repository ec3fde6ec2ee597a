import FoundationEssentials

/// The sound an alert plays.
public enum AlertSound: Codable, Hashable, Sendable {
    /// The device's built-in alarm tone.
    case `default`
    /// A sound file in the device's sounds directory, by file name (for example `"birds.wav"`).
    /// If it cannot be played, the built-in tone plays instead.
    case named(String)
}

/// An action the device runs when a button of an alarm is pressed.
///
/// AlarmKit runs App Intents; on the appliance an intent is a name that the owning client is
/// notified of, and that the device configuration may map to a command. Clients never supply
/// commands themselves.
public struct AlarmIntent: Codable, Hashable, Sendable {
    /// A name the owning client recognises, for example `"open-app"` or `"log-medication"`.
    public var name: String
    /// Parameters passed along with the notification.
    public var parameters: [String: String]

    public init(_ name: String, parameters: [String: String] = [:]) {
        self.name = name
        self.parameters = parameters
    }
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
        /// Run when the alarm is stopped from the device.
        public var stopIntent: AlarmIntent?
        /// Run when the secondary button is pressed and its behaviour is `.custom`.
        public var secondaryIntent: AlarmIntent?
        public var sound: AlertSound

        public init(
            countdownDuration: Alarm.CountdownDuration? = nil,
            schedule: Alarm.Schedule? = nil,
            attributes: AlarmAttributes<Metadata>,
            stopIntent: AlarmIntent? = nil,
            secondaryIntent: AlarmIntent? = nil,
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
            stopIntent: AlarmIntent? = nil,
            secondaryIntent: AlarmIntent? = nil,
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
            stopIntent: AlarmIntent? = nil,
            secondaryIntent: AlarmIntent? = nil,
            sound: AlertSound = .default
        ) -> Self {
            Self(
                countdownDuration: Alarm.CountdownDuration(preAlert: duration, postAlert: duration),
                attributes: attributes, stopIntent: stopIntent, secondaryIntent: secondaryIntent, sound: sound)
        }
    }
}
