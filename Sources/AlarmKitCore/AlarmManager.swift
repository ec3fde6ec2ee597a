import Synchronization

/// Schedules and changes the alarms of one client, as AlarmKit's `AlarmManager` does.
///
/// An app uses `AlarmManager.shared` (module `AlarmKit`), its own alarms on this device's
/// `alarmd`; inside the daemon and in tests a manager is made over a backend, such as the engine
/// in this process (`AlarmRuntime.manager(for:)` in `AlarmEngine`).
///
/// The synchronous members are Apple's, declared as Apple declares them: ``alarms``,
/// ``authorizationState`` and `cancel`/`stop`/`countdown`/`pause`/`resume(id:)`, with no `async`
/// overloads, so `try manager.stop(id: id)` compiles unchanged in `async` code (an overload
/// marked `async` would win there and demand `await`). Over the socket a synchronous member
/// blocks its thread for one round trip on a connection of its own, which needs no other
/// thread, so it cannot deadlock an actor. In the engine's own process, ``alarms`` and
/// ``authorizationState`` read the state the engine last published without waiting; a
/// synchronous change waits for the engine when called outside any task, and inside a task
/// throws ``AlarmOperationError/serviceUnavailable(_:)`` rather than block a thread the engine's
/// actor may need: use ``perform(_:id:)`` there.
///
/// ```swift
/// let manager = runtime.manager(for: .currentUser)
/// let alarm = try await manager.schedule(
///     id: Alarm.ID(),
///     configuration: .alarm(
///         schedule: .relative(.init(time: .init(hour: 7, minute: 0), repeats: .weekly([.monday]))),
///         attributes: AlarmAttributes<NoAlarmMetadata>(
///             presentation: AlarmPresentation(alert: .init(title: "Wake up")), tintColor: .orange)))
/// ```
public final class AlarmManager: Sendable {
    /// Whether a client may set alarms.
    public enum AuthorizationState: String, Codable, Hashable, Sendable, CaseIterable {
        case notDetermined, denied, authorized
    }

    let backend: any AlarmBackend
    let intentTypes = Mutex(IntentTypes())

    public init(backend: any AlarmBackend) {
        self.backend = backend
    }

    /// The client's authorization; `.notDetermined` while `alarmd` cannot be reached.
    public var authorizationState: AuthorizationState {
        backend.authorizationState()
    }

    /// The current authorization at once, then every change. Each access returns a new sequence.
    public var authorizationUpdates: AlarmAuthorizationStateUpdates {
        AlarmAuthorizationStateUpdates(stream: backend.authorizationUpdates())
    }

    /// Asks the device's owner whether this client may set alarms (only when not yet determined).
    /// `.denied` is a result, not an error.
    public func requestAuthorization() async throws -> AuthorizationState {
        try await backend.requestAuthorization()
    }

    /// Schedules an alarm or a timer under `id`.
    ///
    /// The first call of a client whose authorization is `.notDetermined` asks for it first.
    /// Returns once the alarm is durable: a power cut after this returns does not lose it.
    /// - Throws: ``AlarmOperationError`` (not authorized, invalid configuration, duplicate id,
    ///   storage failure) or ``AlarmError/maximumLimitReached``.
    @discardableResult
    public func schedule<Metadata>(
        id: Alarm.ID,
        configuration: AlarmConfiguration<Metadata>
    ) async throws -> Alarm {
        let definition = try AlarmDefinition(configuration)
        try definition.validate()
        return try await backend.schedule(id: id, definition: definition)
    }

    /// Deletes the alarm, whatever its state or schedule.
    public func cancel(id: Alarm.ID) throws {
        try backend.performBlocking(.cancel, id: id)
    }

    /// Stops an alerting, counting-down or paused alarm. A one-shot alarm is deleted; a repeating
    /// one goes back to `.scheduled` for its next occurrence.
    /// - Throws: ``AlarmOperationError/invalidTransition(_:action:from:)`` while `.scheduled`.
    public func stop(id: Alarm.ID) throws {
        try backend.performBlocking(.stop, id: id)
    }

    /// Snoozes (or repeats) an alerting alarm: `.countdown` for `postAlert ?? preAlert`.
    /// - Throws: if the alarm is not alerting, or has no countdown duration.
    public func countdown(id: Alarm.ID) throws {
        try backend.performBlocking(.countdown, id: id)
    }

    /// Pauses a counting-down alarm. Paused time does not count.
    public func pause(id: Alarm.ID) throws {
        try backend.performBlocking(.pause, id: id)
    }

    /// Resumes a paused alarm's countdown where it stopped.
    public func resume(id: Alarm.ID) throws {
        try backend.performBlocking(.resume, id: id)
    }

    /// Performs `action` (`.stop`, `.cancel`, `.countdown`, `.pause` or `.resume`) as the
    /// synchronous member of that name does, without blocking a thread: for the engine's own
    /// process, whose synchronous members refuse to wait inside a task.
    ///
    /// Not Apple's: AlarmKit declares only the synchronous members, so that is what an app
    /// writes, also in `async` code such as an intent's `perform()`.
    public func perform(_ action: AlarmAction, id: Alarm.ID) async throws {
        try await backend.perform(action, id: id)
    }

    /// The client's alarms.
    public var alarms: [Alarm] {
        get throws { try backend.alarms() }
    }

    /// The client's whole list at once, then after every change; an alarm missing from a list no
    /// longer exists. Each access returns a new sequence, and every sequence gets every change
    /// after its first list. The subscription is in place once that first list arrived: it holds
    /// any change made before, so wait for it before relying on seeing a change as a step.
    public var alarmUpdates: AlarmUpdates {
        AlarmUpdates(stream: backend.alarmUpdates())
    }
}

extension AlarmManager {
    /// The client's whole list of alarms at once, then after every change.
    public typealias AlarmUpdates = Updates<[Alarm]>
    /// The client's authorization at once, then every change.
    public typealias AlarmAuthorizationStateUpdates = Updates<AuthorizationState>

    /// The manager's sequences of states: the current value at once, then every change. They
    /// never fail; one ends only when its manager's backend closes.
    public struct Updates<Element: Sendable>: AsyncSequence, Sendable {
        public typealias Failure = Never
        let stream: AsyncStream<Element>

        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<Element>.Iterator

            public mutating func next() async -> Element? { await base.next() }

            public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
                await base.next(isolation: actor)
            }
        }

        public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }
    }
}
