import AlarmKitCore

/// A change the device's own rules refuse: ``AlarmCommand/disable``, `enable` or `skip`, or a
/// `replace` of an alarm that is ringing. AlarmKit's errors have no case for these, so the
/// refusal names its reason and what to do instead. Nothing changed.
///
/// On the control socket it is an `invalidTransition` error whose message is ``description``.
public struct AlarmChangeRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was asked, as the operation is named: `disable`, `enable`, `skip` or `replace`.
    public var change: String
    public var alarmID: Alarm.ID
    /// Why, with what to do instead: "it is alerting (stop it first)".
    public var reason: String

    public init(_ change: String, alarmID: Alarm.ID, reason: String) {
        self.change = change
        self.alarmID = alarmID
        self.reason = reason
    }

    public var description: String { "cannot \(change) alarm \(alarmID): \(reason)" }
}
