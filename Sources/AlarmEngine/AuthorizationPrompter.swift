import AlarmKitCore
import AlarmModel

/// Asks the device's owner whether a client may set alarms.
///
/// The appliance implements it with a prompt on the display answered by the two buttons.
public protocol AuthorizationPrompter: Sendable {
    /// Asks about `client` and returns the decision: `.authorized`, `.denied`, or `.notDetermined`
    /// when nobody answered (the client may ask again later).
    func requestAuthorization(for client: ClientID) async -> AlarmManager.AuthorizationState
}

/// Answers every request the same way without asking anyone.
///
/// For a device whose only clients are its owner's own programs (the simulator, an in-process
/// manager, tests); a device with untrusted local users uses the appliance's prompt.
public struct FixedAuthorization: AuthorizationPrompter {
    public let decision: AlarmManager.AuthorizationState

    public init(_ decision: AlarmManager.AuthorizationState) {
        self.decision = decision
    }

    public func requestAuthorization(for client: ClientID) async -> AlarmManager.AuthorizationState {
        decision
    }
}
