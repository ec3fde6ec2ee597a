import FoundationEssentials

/// What an ``AlarmManager`` talks to: the engine in this process, or `alarmd` over its socket.
///
/// A backend serves one client: every call acts on that client's alarms only. The synchronous
/// members serve AlarmManager's synchronous members, as Apple declares them; each says how it
/// waits.
public protocol AlarmBackend: Sendable {
    /// The client's current authorization.
    func authorizationState() -> AlarmManager.AuthorizationState
    /// A new stream that yields the current authorization at once and then every change.
    func authorizationUpdates() -> AsyncStream<AlarmManager.AuthorizationState>
    /// Asks the device's owner, if the client's state is `.notDetermined`; returns the decision.
    func requestAuthorization() async throws -> AlarmManager.AuthorizationState
    /// Schedules an alarm; returns it once the change is durable.
    func schedule(id: Alarm.ID, definition: AlarmDefinition) async throws -> Alarm
    /// Performs a state change on one of the client's alarms; returns once it is durable.
    func perform(_ action: AlarmAction, id: Alarm.ID) async throws
    /// ``perform(_:id:)`` for a caller that cannot await: returns once the change is durable.
    func performBlocking(_ action: AlarmAction, id: Alarm.ID) throws
    /// The client's alarms.
    func alarms() throws -> [Alarm]
    /// A new stream that yields the client's whole list as it is when the subscription takes
    /// effect, then after every change.
    func alarmUpdates() -> AsyncStream<[Alarm]>
    /// A new stream of the intents delivered to the client: those waiting for it at once, then
    /// each new one. One not yet acknowledged may come again (after a reconnection).
    func intentDeliveries() -> AsyncStream<AlarmIntentDelivery>
    /// Takes a delivery to run it: `true` for exactly one process of the app (the first to ask),
    /// `false` for the others and for a delivery already acknowledged. A taken delivery goes
    /// out again if its taker goes away without acknowledging it.
    func takeIntent(_ id: UUID) async throws -> Bool
    /// Marks a delivery handled, so it is not delivered again; an unknown id is no error.
    func acknowledgeIntent(_ id: UUID) async throws
}
