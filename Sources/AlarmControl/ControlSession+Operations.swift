import AlarmEngine
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import LinuxSupport

extension ControlSession {
    /// Handles one request of the connection's queue.
    ///
    /// - Parameter decided: a `schedule` back from its authorization prompt.
    func perform(_ request: ControlRequest, decided: Bool) async throws -> Outcome {
        let client = peer.client
        if let command = AlarmCommand(rawValue: request.operation) {
            let parameters = try request.parameters(AlarmIDParameters.self)
            try await runtime.perform(command, id: parameters.id, client: client)
            return .result(JSONValue.null)
        }
        switch request.operation {
        case ControlOperationName.hello:
            let parameters = try request.parameters(ControlHelloParameters.self)
            if let problem = parameters.problem { throw ControlRequestError(id: request.id, .malformed, problem) }
            app = parameters.app
            let configuration = server.configuration
            return .result(ControlHello(
                protocol: ControlProtocol.version, server: configuration.serverName, version: configuration.serverVersion,
                uid: peer.uid, gid: peer.gid, admin: peer.isAdministrator, maximumRequestSize: ControlProtocol.maximumRequestSize))

        case ControlOperationName.alarms:
            _ = try request.parameters(NoParameters.self)
            let alarms = await runtime.alarms(for: client)
            guard let array = server.alarmListLines.array(alarms, owner: client) else { return .result(alarms) }
            return .encodedResult(array)

        case ControlOperationName.schedule:
            return try await schedule(request, decided: decided)

        case ControlOperationName.replace:
            let parameters = try request.parameters(ScheduleParameters.self)
            try await authorizeAdministrator()
            return .result(try await runtime.replace(id: parameters.id, definition: parameters.definition, client: client))

        case ControlOperationName.subscribeAlarms:
            return try subscribe(request, runtime.alarmUpdates(for: client), event: ControlEventName.alarms)

        case ControlOperationName.subscribeAuthorization:
            try await authorizeAdministrator()
            return try subscribe(request, runtime.authorizationUpdates(for: client), event: ControlEventName.authorization)

        case ControlOperationName.subscribeIntents:
            _ = try request.parameters(NoParameters.self)
            return try subscribe(request, runtime.intents.deliveries(for: intentRecipient), event: ControlEventName.intent)

        case ControlOperationName.subscribeDevice:
            try requireAdministrator(request)
            _ = try request.parameters(NoParameters.self)
            return try subscribe(request, runtime.deviceSnapshots().map { DeviceChange(revision: $0.revision) }, event: ControlEventName.device)

        case ControlOperationName.takeIntent:
            let parameters = try request.parameters(AlarmIDParameters.self)
            return .result(ControlIntentTaken(taken: runtime.intents.take(parameters.id, for: intentRecipient, by: intentTaker)))

        case ControlOperationName.acknowledgeIntent:
            let parameters = try request.parameters(AlarmIDParameters.self)
            runtime.intents.acknowledge(parameters.id, for: client)
            return .result(JSONValue.null)

        case ControlOperationName.unsubscribe:
            let parameters = try request.parameters(UnsubscribeParameters.self)
            _ = unsubscribe(parameters.subscription)
            return .result(JSONValue.null)

        case ControlOperationName.authorizationState:
            try await authorizeAdministrator()
            return .result(await runtime.authorizationState(for: client))

        case ControlOperationName.requestAuthorization:
            try await authorizeAdministrator()
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

        case ControlOperationName.allAlarms:
            try requireAdministrator(request)
            return .result(await runtime.allAlarms())

        case ControlOperationName.authorizations:
            try requireAdministrator(request)
            let all = await runtime.allAuthorizations()
            return .result(all.map { ClientAuthorization(uid: $0.key.rawValue, state: $0.value) }.sorted { $0.uid < $1.uid })

        case ControlOperationName.setAuthorization:
            try requireAdministrator(request)
            let parameters = try request.parameters(SetAuthorizationParameters.self)
            let administrators = server.configuration.administrators
            if await DetachedThread.run({ administrators.includes(uid: parameters.uid) }) {
                throw ControlError(.forbidden, "uid \(parameters.uid) is an administrator and always authorized")
            }
            try await runtime.setAuthorization(parameters.state, for: ClientID(rawValue: parameters.uid))
            return .result(JSONValue.null)

        default:
            guard let handler = server.handlers[request.operation] else {
                throw ControlError(.unknownOperation, "unknown operation \"\(ControlRequest.clipped(request.operation))\"")
            }
            if handler.requiresAdministrator { try requireAdministrator(request) }
            return .result(try await handler.handle(ControlCall(peer: peer, request: request)))
        }
    }

    /// `schedule`: validated first, so a bad definition never prompts anyone; a client whose
    /// authorization is not determined is asked beside the queue, then the request rejoins it.
    private func schedule(_ request: ControlRequest, decided: Bool) async throws -> Outcome {
        let parameters = try request.parameters(ScheduleParameters.self)
        try parameters.definition.validate()
        let client = peer.client
        try await authorizeAdministrator()
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

    private func requireAdministrator(_ request: ControlRequest) throws {
        guard peer.isAdministrator else {
            throw ControlError(.forbidden, "\(request.operation) is for administrators (root or the administrators' group)")
        }
    }
}
