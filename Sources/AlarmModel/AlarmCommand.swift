import AlarmKitCore

/// A change asked of one alarm: AlarmKit's actions (stop, cancel, snooze, pause, resume) and the
/// device's extensions to AlarmKit (disable, enable, skip), which has no way to keep an alarm
/// without it ringing. Each is named on the control socket by its raw value and takes
/// `{"id": ...}`; the engine performs every one through the same path, so a refused one changes
/// nothing.
///
/// The extensions are kept out of `AlarmKitCore`, so an app's AlarmKit API stays Apple's: there a
/// change is an `AlarmAction`, and ``init(_:)`` makes it a command. Refusing an extension throws
/// ``AlarmChangeRefusal`` naming the reason (e.g. "stop it first"); asking for what already holds
/// (disabling a disabled alarm, skipping twice) is a harmless no-op.
public enum AlarmCommand: String, Codable, Hashable, Sendable, CaseIterable {
    /// AlarmKit's `stop(id:)`: alerting, counting down or paused; a one-shot ends, a repeating
    /// alarm moves on.
    case stop
    /// AlarmKit's `cancel(id:)`: deletes it, in any state.
    case cancel
    /// AlarmKit's `countdown(id:)`: a snooze or repeat of an alerting alarm.
    case countdown
    /// AlarmKit's `pause(id:)`, while counting down.
    case pause
    /// AlarmKit's `resume(id:)`, while paused.
    case resume
    /// Keeps the alarm in the list without it ringing: no next date, never missed. Any countdown
    /// (a snooze, a pre-alert) ends. Refused for a timer (no schedule) and while alerting.
    case disable
    /// Undoes `disable` (the next occurrence from now; a `.fixed` date must not have passed by
    /// more than the grace period) and `skip`.
    case enable
    /// A weekly alarm's next occurrence does not ring; the one after does. While snoozed, the
    /// next occurrence after the one that rang. Refused for other alarms, while alerting, while
    /// disabled and while the clock is untrusted (its next day is not known).
    case skip

    /// The command an app's AlarmKit call stands for.
    public init(_ action: AlarmAction) {
        switch action {
        case .stop: self = .stop
        case .cancel: self = .cancel
        case .countdown: self = .countdown
        case .pause: self = .pause
        case .resume: self = .resume
        }
    }

    /// The AlarmKit action it is, or `nil` for the device's extensions.
    public var alarmKitAction: AlarmAction? {
        AlarmAction(rawValue: rawValue)
    }
}
