import AlarmKitCore
import AlarmModel
import FoundationEssentials
import Glibc

/// Serves an ``AlarmManager`` from an ``AlarmRuntime`` in the same process, for one client.
///
/// The synchronous reads return what the engine last published (what ``alarmUpdates()`` last
/// yielded) without waiting for the actor. A synchronous change waits for the engine on the
/// calling thread, outside any task; inside a task it throws rather than block a thread of the
/// cooperative pool that the engine's actor may need.
///
/// Its alarms' intents go to `app` (``IntentRecipient``); the backend takes deliveries as one
/// process of that app (``IntentTaker``).
public struct InProcessAlarmBackend: AlarmBackend {
    public let runtime: AlarmRuntime
    public let client: ClientID
    public let app: String?
    private let taker = IntentTaker()

    public init(runtime: AlarmRuntime, client: ClientID, app: String? = nil) {
        self.runtime = runtime
        self.client = client
        self.app = app
    }

    public func authorizationState() -> AlarmManager.AuthorizationState {
        runtime.authorizationStates.latest(client) ?? .notDetermined
    }

    public func authorizationUpdates() -> AsyncStream<AlarmManager.AuthorizationState> {
        runtime.authorizationUpdates(for: client)
    }

    public func requestAuthorization() async throws -> AlarmManager.AuthorizationState {
        try await runtime.requestAuthorization(for: client)
    }

    public func schedule(id: Alarm.ID, definition: AlarmDefinition) async throws -> Alarm {
        try await runtime.schedule(id: id, definition: definition, client: client, app: app)
    }

    public func perform(_ action: AlarmAction, id: Alarm.ID) async throws {
        try await runtime.perform(AlarmCommand(action), id: id, client: client)
    }

    public func performBlocking(_ action: AlarmAction, id: Alarm.ID) throws {
        guard !Self.isInTask else {
            throw AlarmOperationError.serviceUnavailable(
                "a synchronous \(action.rawValue) cannot wait for the engine inside a task in its own process; use `try await manager.perform(.\(action.rawValue), id:)`")
        }
        let done = ThreadWait<Result<Void, any Error>>()
        Task { [runtime, client] in
            do {
                try await runtime.perform(AlarmCommand(action), id: id, client: client)
                done.finish(.success(()))
            } catch {
                done.finish(.failure(error))
            }
        }
        try done.wait().get()
    }

    public func alarms() throws -> [Alarm] {
        runtime.alarmLists.latest(client) ?? []
    }

    public func alarmUpdates() -> AsyncStream<[Alarm]> {
        runtime.alarmUpdates(for: client)
    }

    public func intentDeliveries() -> AsyncStream<AlarmIntentDelivery> {
        runtime.intents.deliveries(for: IntentRecipient(owner: client, app: app))
    }

    public func takeIntent(_ id: UUID) async throws -> Bool {
        runtime.intents.take(id, for: IntentRecipient(owner: client, app: app), by: taker)
    }

    public func acknowledgeIntent(_ id: UUID) async throws {
        runtime.intents.acknowledge(id, for: client)
    }

    private static var isInTask: Bool { withUnsafeCurrentTask { $0 != nil } }
}

/// A value one thread waits for and another provides, once.
private final class ThreadWait<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is guarded by the pthread mutex, which Swift cannot see through. The
    // mutex and condition are allocated, as a pthread object must not move.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var value: Value?

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func finish(_ value: Value) {
        pthread_mutex_lock(mutex)
        self.value = value
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    func wait() -> Value {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if let value { return value }
            pthread_cond_wait(condition, mutex)
        }
    }
}
