import AlarmKitCore
import AlarmModel
import AlarmProtocol
import FoundationEssentials

/// Serves an ``AlarmManager`` from `alarmd` over its control socket: the same API as in process.
///
/// ```swift
/// let manager = AlarmManager(backend: SocketAlarmBackend(path: ControlProtocol.defaultSocketPath))
/// for await alarms in manager.alarmUpdates { ... }     // survives a daemon restart
/// ```
///
/// The client is this process's effective uid, as the daemon reads it from the socket, and the
/// app its ``ControlClient`` names (``ControlClient/app``). Where the socket makes a difference:
/// - Calls throw ``AlarmOperationError/serviceUnavailable(_:)`` while the daemon cannot be
///   reached, and a call in flight when the connection drops fails that way too (it is not
///   retried: it may have taken effect).
/// - ``authorizationState()`` cannot throw: it returns `.notDetermined` while the daemon cannot
///   be reached.
/// - The synchronous members (``authorizationState()``, ``alarms()``,
///   ``performBlocking(_:id:)``) block the calling thread for one round trip on a connection of
///   their own (``ControlClient/callBlocking(_:_:)``); the rest share one connection.
/// - `alarmUpdates` and `authorizationUpdates` keep going across daemon restarts: they yield the
///   fresh value after each reconnection; `intentDeliveries` yields what still waits.
public struct SocketAlarmBackend: AlarmBackend {
    public let client: ControlClient

    public init(client: ControlClient) {
        self.client = client
    }

    /// A backend over a new ``ControlClient`` for the socket at `path`, as `app`.
    public init(path: String = ControlProtocol.defaultSocketPath, app: String? = nil) {
        self.init(client: ControlClient(path: path, app: app))
    }

    public func authorizationState() -> AlarmManager.AuthorizationState {
        (try? client.callBlocking(.authorizationState, NoParameters()))
            ?? .notDetermined
    }

    public func authorizationUpdates() -> AsyncStream<AlarmManager.AuthorizationState> {
        client.authorizationUpdates()
    }

    public func requestAuthorization() async throws -> AlarmManager.AuthorizationState {
        try await client.requestAuthorization()
    }

    public func schedule(id: Alarm.ID, definition: AlarmDefinition) async throws -> Alarm {
        try await client.schedule(id: id, definition: definition)
    }

    public func perform(_ action: AlarmAction, id: Alarm.ID) async throws {
        try await client.perform(AlarmCommand(action), id: id)
    }

    public func performBlocking(_ action: AlarmAction, id: Alarm.ID) throws {
        _ = try client.callBlocking(.command(AlarmCommand(action)), AlarmIDParameters(id: id))
    }

    public func alarms() throws -> [Alarm] {
        try client.callBlocking(.alarms, NoParameters())
    }

    public func alarmUpdates() -> AsyncStream<[Alarm]> {
        client.alarmUpdates()
    }

    public func intentDeliveries() -> AsyncStream<AlarmIntentDelivery> {
        client.intentDeliveries()
    }

    public func takeIntent(_ id: UUID) async throws -> Bool {
        try await client.takeIntent(id)
    }

    public func acknowledgeIntent(_ id: UUID) async throws {
        try await client.acknowledgeIntent(id)
    }
}
