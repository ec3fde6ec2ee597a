/// AlarmKit's `LocalizedStringResource`: on the appliance a title is a plain string, shown as is.
public typealias LocalizedStringResource = String

/// What the device shows for an alarm in each of its states.
///
/// The appliance renders these on its character display; the button texts label the physical
/// STOP and SNOOZE buttons.
public struct AlarmPresentation: Codable, Hashable, Sendable {
    /// Shown while the alarm is alerting. Required.
    public var alert: Alert
    /// Shown while counting down; `nil` if the alarm has no countdown presentation.
    public var countdown: Countdown?
    /// Shown while paused; `nil` if the alarm has no paused presentation.
    public var paused: Paused?

    public init(alert: Alert, countdown: Countdown? = nil, paused: Paused? = nil) {
        self.alert = alert
        self.countdown = countdown
        self.paused = paused
    }

    /// The alerting presentation.
    public struct Alert: Codable, Hashable, Sendable {
        public var title: LocalizedStringResource
        /// Labels the STOP button.
        public var stopButton: AlarmButton
        /// Labels the SNOOZE button; `nil` leaves it without a secondary action.
        public var secondaryButton: AlarmButton?
        /// What the secondary button does.
        public var secondaryButtonBehavior: SecondaryButtonBehavior?

        public init(
            title: LocalizedStringResource,
            stopButton: AlarmButton = .stop,
            secondaryButton: AlarmButton? = nil,
            secondaryButtonBehavior: SecondaryButtonBehavior? = nil
        ) {
            self.title = title
            self.stopButton = stopButton
            self.secondaryButton = secondaryButton
            self.secondaryButtonBehavior = secondaryButtonBehavior
        }

        /// What the secondary button of an alert does.
        public enum SecondaryButtonBehavior: String, Codable, Hashable, Sendable {
            /// Starts the post-alert countdown (snooze or repeat): ``AlarmManager/countdown(id:)``.
            case countdown
            /// Runs the alarm's secondary intent and stops the alarm.
            case custom
        }
    }

    /// The counting-down presentation.
    public struct Countdown: Codable, Hashable, Sendable {
        public var title: LocalizedStringResource
        /// Labels the button that pauses the countdown; `nil` if it cannot be paused from the device.
        public var pauseButton: AlarmButton?

        public init(title: LocalizedStringResource, pauseButton: AlarmButton? = nil) {
            self.title = title
            self.pauseButton = pauseButton
        }
    }

    /// The paused presentation.
    public struct Paused: Codable, Hashable, Sendable {
        public var title: LocalizedStringResource
        /// Labels the button that resumes the countdown.
        public var resumeButton: AlarmButton

        public init(title: LocalizedStringResource, resumeButton: AlarmButton) {
            self.title = title
            self.resumeButton = resumeButton
        }
    }
}

/// The label of a button: its text, colour and an SF Symbols name.
///
/// The appliance maps well-known symbol names (`stop.circle`, `zzz`, `pause.fill`, `play.fill`,
/// `repeat`) to glyphs of its display; other names show the text alone.
public struct AlarmButton: Codable, Hashable, Sendable {
    public var text: LocalizedStringResource
    public var textColor: Color
    public var systemImageName: String

    public init(text: LocalizedStringResource, textColor: Color, systemImageName: String) {
        self.text = text
        self.textColor = textColor
        self.systemImageName = systemImageName
    }

    /// "Stop" with a stop symbol.
    public static let stop = AlarmButton(text: "Stop", textColor: .white, systemImageName: "stop.circle")
    /// "Snooze" with a snooze symbol.
    public static let snooze = AlarmButton(text: "Snooze", textColor: .white, systemImageName: "zzz")
    /// "Repeat" with a repeat symbol, for timers.
    public static let `repeat` = AlarmButton(text: "Repeat", textColor: .white, systemImageName: "repeat")
    /// "Pause" with a pause symbol.
    public static let pause = AlarmButton(text: "Pause", textColor: .white, systemImageName: "pause.fill")
    /// "Resume" with a play symbol.
    public static let resume = AlarmButton(text: "Resume", textColor: .white, systemImageName: "play.fill")
}
