import AlarmEngine
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import Synchronization
import LinuxSupport

extension ControlSession {
    /// Handles one request of the connection's queue, by the handler its operation has.
    ///
    /// - Parameter decided: a `schedule` back from its authorization prompt.
    func perform(_ request: ControlRequest, decided: Bool) async throws -> Outcome {
        guard let entry = server.handlers[request.operation] else {
            throw ControlError(.unknownOperation, "unknown operation \"\(ControlRequest.clipped(request.operation))\"")
        }
        if entry.operation.requiresAdministrator { try requireAdministrator(request) }
        return try await entry.body(self, request, decided)
    }

    /// The protocol's own operations, which every server answers.
    static let builtIns: ControlHandlers = {
        var handlers = ControlHandlers()
        serveCommands(&handlers)
        serveAlarmKit(&handlers)
        serveSubscriptions(&handlers)
        serveAdministration(&handlers)
        return handlers
    }()

    /// The commands on one of the caller's alarms: AlarmKit's actions and the device's
    /// disable, enable and skip; and how one wakes.
    private static func serveCommands(_ handlers: inout ControlHandlers) {
        for command in AlarmCommand.allCases {
            handlers.serve(.command(command)) { session, request, parameters, _ in
                let client = try session.client(acting: command, on: parameters.owner, request)
                try await session.runtime.perform(command, id: parameters.id, client: client)
                return .result(NullAnswer())
            }
        }
        handlers.serve(.setWake) { session, _, parameters, _ in
            try await session.runtime.setWake(parameters.wake, id: parameters.id, client: session.peer.client)
            return .result(NullAnswer())
        }
    }

    private static func serveAlarmKit(_ handlers: inout ControlHandlers) {
        handlers.serve(.hello) { session, request, parameters, _ in try session.hello(request, parameters) }
        handlers.serve(.alarms) { session, _, _, _ in
            let client = session.peer.client
            let alarms = await session.runtime.alarms(for: client)
            guard let array = session.server.alarmListLines.array(alarms, owner: client) else { return .result(alarms) }
            return .encodedResult(array)
        }
        handlers.serve(.schedule) { session, request, parameters, decided in
            try await session.schedule(request, parameters, decided: decided)
        }
        handlers.serve(.replace) { session, _, parameters, _ in
            try await session.authorizeAdministrator()
            try await session.checkSound(of: parameters.definition)
            return .result(try await session.runtime.replace(id: parameters.id, definition: parameters.definition, client: session.peer.client))
        }
        handlers.serve(.takeIntent) { session, _, parameters, _ in
            let taken = session.runtime.intents.take(parameters.id, for: session.intentRecipient, by: session.intentTaker)
            return .result(ControlIntentTaken(taken: taken))
        }
        handlers.serve(.acknowledgeIntent) { session, _, parameters, _ in
            session.runtime.intents.acknowledge(parameters.id, for: session.peer.client)
            return .result(NullAnswer())
        }
        handlers.serve(.authorizationState) { session, _, _, _ in
            try await session.authorizeAdministrator()
            return .result(await session.runtime.authorizationState(for: session.peer.client))
        }
        handlers.serve(.requestAuthorization) { session, request, _, _ in try await session.requestAuthorization(request) }
    }

    private static func serveSubscriptions(_ handlers: inout ControlHandlers) {
        handlers.serve(.subscribeAlarms) { session, request, _, _ in
            try session.subscribe(request, session.runtime.alarmUpdates(for: session.peer.client), event: ControlEventName.alarms)
        }
        handlers.serve(.subscribeAuthorization) { session, request, _, _ in
            try await session.authorizeAdministrator()
            let updates = session.runtime.authorizationUpdates(for: session.peer.client)
            return try session.subscribe(request, updates, event: ControlEventName.authorization)
        }
        handlers.serve(.subscribeIntents) { session, request, _, _ in
            try session.subscribe(request, session.runtime.intents.deliveries(for: session.intentRecipient), event: ControlEventName.intent)
        }
        handlers.serve(.subscribeDevice) { session, request, _, _ in
            // Subscribed first, then the revision now: the subscriber reads the device at once,
            // and nothing that changes in between is missed.
            let snapshots = session.runtime.deviceSnapshots()
            let current = await session.runtime.deviceRevision
            let changes = Self.deviceChanges(snapshots, presses: session.server.configuration.buttonPresses?(), startingAt: current)
            return try session.subscribe(request, changes, event: ControlEventName.device)
        }
        handlers.serve(.unsubscribe) { session, _, parameters, _ in
            _ = session.unsubscribe(parameters.subscription)
            return .result(NullAnswer())
        }
    }

    private static func serveAdministration(_ handlers: inout ControlHandlers) {
        handlers.serve(.allAlarms) { session, _, _, _ in .result(await session.runtime.allAlarms()) }
        handlers.serve(.authorizations) { session, _, _, _ in
            let all = await session.runtime.allAuthorizations()
            return .result(all.map { ClientAuthorization(uid: $0.key.rawValue, state: $0.value) }.sorted { $0.uid < $1.uid })
        }
        handlers.serve(.setAuthorization) { session, _, parameters, _ in
            let administrators = session.server.configuration.administrators
            if await DetachedThread.run({ administrators.includes(uid: parameters.uid) }) {
                throw ControlError(.forbidden, "uid \(parameters.uid) is an administrator and always authorized")
            }
            try await session.runtime.setAuthorization(parameters.state, for: ClientID(rawValue: parameters.uid))
            return .result(NullAnswer())
        }
    }

    private func hello(_ request: ControlRequest, _ parameters: ControlHelloParameters) throws -> Outcome {
        if let problem = parameters.problem { throw ControlRequestError(id: request.id, .malformed, problem) }
        app = parameters.app
        let configuration = server.configuration
        return .result(ControlHello(
            protocol: ControlProtocol.version, server: configuration.serverName, version: configuration.serverVersion,
            uid: peer.uid, gid: peer.gid, admin: peer.isAdministrator, maximumRequestSize: ControlProtocol.maximumRequestSize))
    }

    /// `schedule`: validated first, so a bad definition never prompts anyone; a client whose
    /// authorization is not determined is asked beside the queue, then the request rejoins it.
    private func schedule(_ request: ControlRequest, _ parameters: ScheduleParameters, decided: Bool) async throws -> Outcome {
        try parameters.definition.validate()
        let client = peer.client
        try await authorizeAdministrator()
        try await checkSound(of: parameters.definition)
        let authorization = await runtime.authorizationState(for: client)
        if authorization == .notDetermined {
            // After a prompt nobody answered, refuse rather than ask again in the queue.
            if decided { throw AlarmOperationError.notAuthorized(.notDetermined) }
            park(request) { [self] in
                _ = try? await runtime.requestAuthorization(for: client)
                requeue(request)
            }
            return .parked
        }
        let alarm = try await runtime.schedule(id: parameters.id, definition: parameters.definition, client: client, app: app)
        return .result(alarm)
    }

    /// Refuses a definition whose named sound cannot ring, with the reason.
    func checkSound(of definition: AlarmDefinition) async throws {
        guard case .named(let name) = definition.sound, let check = server.configuration.soundCheck else { return }
        if let reason = await check(name) {
            throw AlarmOperationError.invalidConfiguration("sound \"\(name)\" cannot ring: \(reason)")
        }
    }

    /// `requestAuthorization`: the state at once unless it is not determined; then a prompt,
    /// answered beside the queue.
    private func requestAuthorization(_ request: ControlRequest) async throws -> Outcome {
        try await authorizeAdministrator()
        let client = peer.client
        let current = await runtime.authorizationState(for: client)
        guard current == .notDetermined else { return .result(current) }
        park(request) { [self] in
            do {
                send(try await runtime.requestAuthorization(for: client), to: request)
            } catch {
                send(error, to: request)
            }
            connection.requestFinished()
        }
        return .parked
    }

    private func subscribe<Value: Encodable & Sendable>(
        _ request: ControlRequest, _ stream: some AsyncSequence<Value, Never> & Sendable, event: String
    ) throws -> Outcome {
        let number = subscribe(stream, event: event) { number in
            send(ControlSubscription(subscription: number), to: request)
        }
        guard number != nil else {
            let limit = server.configuration.maximumSubscriptions
            throw ControlError(.busy, "at most \(limit) subscriptions per connection")
        }
        return .sent
    }

    /// Whose alarm `command` acts on: the caller's, or `owner`'s for an administrator's
    /// `disable`, `enable` or `skip`; AlarmKit's own actions stay each client's.
    fileprivate func client(acting command: AlarmCommand, on owner: UInt32?, _ request: ControlRequest) throws -> ClientID {
        guard let owner, owner != peer.client.rawValue else { return peer.client }
        guard [.disable, .enable, .skip].contains(command) else {
            throw ControlError(.malformed, "\"owner\" is only for disable, enable and skip")
        }
        try requireAdministrator(request)
        return ClientID(rawValue: owner)
    }

    private func requireAdministrator(_ request: ControlRequest) throws {
        guard peer.isAdministrator else {
            throw ControlError(.forbidden, "\(request.operation) is for administrators (root or the administrators' group)")
        }
    }
}

extension ControlSession {
    /// The revision now, then the engine's changes and the clock's button presses, as one
    /// stream of ``DeviceChange``s; a press carries the latest change's revision.
    static func deviceChanges(
        _ snapshots: AsyncStream<DeviceSnapshot>, presses: AsyncStream<String>?, startingAt current: UInt64
    ) -> AsyncStream<DeviceChange> {
        let (changes, continuation) = AsyncStream.makeStream(of: DeviceChange.self)
        final class LatestRevision: Sendable {
            let value: Atomic<UInt64>
            init(_ start: UInt64) { value = Atomic(start) }
        }
        let revision = LatestRevision(current)
        continuation.yield(DeviceChange(revision: current))
        let fromEngine = Task {
            for await snapshot in snapshots {
                revision.value.max(snapshot.revision, ordering: .relaxed)
                continuation.yield(DeviceChange(revision: snapshot.revision))
            }
            continuation.finish()
        }
        let fromButtons = Task {
            guard let presses else { return }
            for await button in presses {
                continuation.yield(DeviceChange(revision: revision.value.load(ordering: .relaxed), button: button))
            }
        }
        continuation.onTermination = { _ in
            fromEngine.cancel()
            fromButtons.cancel()
        }
        return changes
    }
}
