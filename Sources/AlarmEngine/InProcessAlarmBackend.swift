import AlarmKit
import AlarmProtocol

/// Serves an ``AlarmManager`` from an ``AlarmRuntime`` in the same process, for one client.
public struct InProcessAlarmBackend: AlarmBackend {
    public let runtime: AlarmRuntime
    public let client: ClientID

    public init(runtime: AlarmRuntime, client: ClientID) {
        self.runtime = runtime
        self.client = client
    }

    public func authorizationState() async -> AlarmManager.AuthorizationState {
        await runtime.authorizationState(for: client)
    }

    public func authorizationUpdates() -> AsyncStream<AlarmManager.AuthorizationState> {
        runtime.authorizationUpdates(for: client)
    }

    public func requestAuthorization() async throws -> AlarmManager.AuthorizationState {
        try await runtime.requestAuthorization(for: client)
    }

    public func schedule(id: Alarm.ID, definition: AlarmDefinition) async throws -> Alarm {
        try await runtime.schedule(id: id, definition: definition, client: client)
    }

    public func perform(_ action: AlarmAction, id: Alarm.ID) async throws {
        try await runtime.perform(action, id: id, client: client)
    }

    public func alarms() async throws -> [Alarm] {
        await runtime.alarms(for: client)
    }

    public func alarmUpdates() -> AsyncStream<[Alarm]> {
        runtime.alarmUpdates(for: client)
    }
}
