import FoundationEssentials

extension AlarmManager {
    /// AlarmKit's own error.
    public enum AlarmError: Error, Codable, Hashable, Sendable, CustomStringConvertible {
        /// The device-wide limit on alarms is reached.
        case maximumLimitReached

        public var description: String {
            switch self {
            case .maximumLimitReached: "the device's limit on alarms is reached"
            }
        }
    }
}

/// The calls that change an alarm's state.
public enum AlarmAction: String, Codable, Hashable, Sendable, CaseIterable {
    case stop, cancel, countdown, pause, resume
}

/// Why a call was refused. Where AlarmKit only says "the function throws", the device says why.
///
/// A refused call changes nothing.
public enum AlarmOperationError: Error, Codable, Hashable, Sendable, CustomStringConvertible {
    /// No alarm of the caller's has this id.
    case notFound(Alarm.ID)
    /// The call does not fit the alarm's state, e.g. `pause` on an alerting alarm.
    case invalidTransition(Alarm.ID, action: AlarmAction, from: Alarm.State)
    /// `countdown(id:)` on an alarm with neither `postAlert` nor `preAlert`.
    case noCountdownDuration(Alarm.ID)
    /// `schedule(id:configuration:)` with an id the caller already uses.
    case duplicateID(Alarm.ID)
    /// The configuration cannot be scheduled; the text names the field.
    case invalidConfiguration(String)
    /// The caller may not set alarms.
    case notAuthorized(AlarmManager.AuthorizationState)
    /// The change could not be made durable, so it was not made.
    case storageFailure(String)
    /// The alarm service cannot be reached.
    case serviceUnavailable(String)

    public var description: String {
        switch self {
        case .notFound(let id):
            "no alarm with id \(id)"
        case .invalidTransition(let id, let action, let state):
            "cannot \(action.rawValue) alarm \(id) while it is \(state.rawValue)"
        case .noCountdownDuration(let id):
            "alarm \(id) has no countdown duration to snooze or repeat with"
        case .duplicateID(let id):
            "an alarm with id \(id) already exists"
        case .invalidConfiguration(let reason):
            "invalid alarm configuration: \(reason)"
        case .notAuthorized(let state):
            "not authorized to set alarms (authorization is \(state.rawValue))"
        case .storageFailure(let reason):
            "the change could not be saved and was not made: \(reason)"
        case .serviceUnavailable(let reason):
            "the alarm service is unavailable: \(reason)"
        }
    }
}
