import AlarmKitCore
import AlarmModel
import FoundationEssentials

// The typed bodies of protocol version 1: parameters, results and the envelopes around them.

/// The result of `hello`.
public struct ControlHello: Codable, Hashable, Sendable {
    /// The protocol version the daemon speaks.
    public var `protocol`: Int
    /// The daemon's name and version, e.g. `alarmd` and `1.0`.
    public var server: String
    public var version: String
    /// Who the daemon believes the caller is (its peer credentials).
    public var uid: UInt32
    public var gid: UInt32
    /// Whether the caller may use the administrators' operations.
    public var admin: Bool
    /// The longest request line accepted.
    public var maximumRequestSize: Int

    public init(protocol: Int, server: String, version: String, uid: UInt32, gid: UInt32, admin: Bool, maximumRequestSize: Int) {
        self.protocol = `protocol`
        self.server = server
        self.version = version
        self.uid = uid
        self.gid = gid
        self.admin = admin
        self.maximumRequestSize = maximumRequestSize
    }
}

/// The parameters of `hello`: how the client names itself.
public struct ControlHelloParameters: Codable, Hashable, Sendable {
    /// The app this client is, e.g. `com.example.eggs` or its executable's name: the alarms it
    /// schedules deliver their intents to this app's connections only. `nil`: it names none, and
    /// sees every intent of its user (`alarmctl`). 1 to 128 characters, no control characters.
    public var app: String?

    public init(app: String? = nil) {
        self.app = app
    }

    /// Why `app` is refused, or `nil` if it is fine.
    public var problem: String? {
        guard let app else { return nil }
        guard (1...128).contains(app.count) else { return "\"app\" must be 1 to 128 characters" }
        guard !app.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return "\"app\" must not contain control characters"
        }
        return nil
    }
}

/// The result of `takeIntent`: whether this connection runs the delivery.
public struct ControlIntentTaken: Codable, Hashable, Sendable {
    public var taken: Bool

    public init(taken: Bool) {
        self.taken = taken
    }
}

/// The result of `subscribeAlarms` and `subscribeAuthorization`: the number its events carry.
public struct ControlSubscription: Codable, Hashable, Sendable {
    public var subscription: Int

    public init(subscription: Int) {
        self.subscription = subscription
    }
}

/// One client's recorded authorization, in an administrator's `authorizations`.
public struct ClientAuthorization: Codable, Hashable, Sendable {
    public var uid: UInt32
    public var state: AlarmManager.AuthorizationState

    public init(uid: UInt32, state: AlarmManager.AuthorizationState) {
        self.uid = uid
        self.state = state
    }
}

/// The parameters of `schedule` and `replace`.
public struct ScheduleParameters: Codable, Equatable, Sendable {
    public var id: Alarm.ID
    public var definition: AlarmDefinition

    public init(id: Alarm.ID, definition: AlarmDefinition) {
        self.id = id
        self.definition = definition
    }
}

/// The parameters of the actions on one alarm (`stop`, `countdown`, `pause`, `resume`, `cancel`,
/// `disable`, `enable`, `skip`) and of `takeIntent` and `acknowledgeIntent` (a delivery's id).
public struct AlarmIDParameters: Codable, Equatable, Sendable {
    public var id: Alarm.ID
    /// Whose alarm, when not the caller's: administrators only, and only for the device's own
    /// `disable`, `enable` and `skip` (the household's bridge acting on the alarms it shows).
    public var owner: UInt32?

    public init(id: Alarm.ID, owner: UInt32? = nil) {
        self.id = id
        self.owner = owner
    }
}

/// The parameters of `setWake`: how one of the caller's alarms wakes. Each field left out (or
/// the whole `wake` empty) is the household's.
public struct SetWakeParameters: Codable, Equatable, Sendable {
    public var id: Alarm.ID
    public var wake: AlarmWake

    public init(id: Alarm.ID, wake: AlarmWake) {
        self.id = id
        self.wake = wake
    }
}

/// The parameters of `unsubscribe`.
public struct UnsubscribeParameters: Codable, Sendable {
    public var subscription: Int

    public init(subscription: Int) {
        self.subscription = subscription
    }
}

/// The parameters of `setAuthorization`.
public struct SetAuthorizationParameters: Codable, Sendable {
    public var uid: UInt32
    public var state: AlarmManager.AuthorizationState

    public init(uid: UInt32, state: AlarmManager.AuthorizationState) {
        self.uid = uid
        self.state = state
    }
}

/// Parameters of an operation that takes none.
public struct NoParameters: Codable, Sendable {
    public init() {}
}

package struct RequestMessage<Parameters: Encodable>: Encodable {
    package var v = ControlProtocol.version
    package var id: Int64
    package var op: String
    package var params: Parameters

    package init(id: Int64, op: String, params: Parameters) {
        self.id = id
        self.op = op
        self.params = params
    }
}

/// A successful response. `result` is always present, `null` for operations that return nothing.
package struct SuccessMessage<Result: Encodable>: Encodable {
    package var v = ControlProtocol.version
    package var id: Int64
    package var ok = true
    package var result: Result

    package init(id: Int64, result: Result) {
        self.id = id
        self.result = result
    }
}

/// A failed response; `id` is `null` when the request's could not be read.
package struct FailureMessage: Encodable {
    package var id: Int64?
    package var error: ControlErrorBody

    package init(id: Int64?, error: ControlErrorBody) {
        self.id = id
        self.error = error
    }

    private enum CodingKeys: String, CodingKey { case v, id, ok, error }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ControlProtocol.version, forKey: .v)
        try container.encode(id, forKey: .id)
        try container.encode(false, forKey: .ok)
        try container.encode(error, forKey: .error)
    }
}

package struct EventMessage<Payload: Encodable>: Encodable {
    package var v = ControlProtocol.version
    package var event: String
    package var subscription: Int
    package var data: Payload

    package init(event: String, subscription: Int, data: Payload) {
        self.event = event
        self.subscription = subscription
        self.data = data
    }
}

/// What a client needs to route a line from the daemon: a response (by `id`) or an event (by
/// `subscription`).
package struct IncomingEnvelope: Decodable {
    package var v: Int?
    package var id: Int64?
    package var ok: Bool?
    package var event: String?
    package var subscription: Int?
    package var error: ControlErrorBody?
}

/// A response's result, decoded as the type the caller expects.
package struct ResultEnvelope<Result: Decodable>: Decodable {
    package var result: Result
}

/// A whole response in one parse: its outcome, and the result as the type the caller expects.
package struct ResponseEnvelope<Result: Decodable>: Decodable {
    package var ok: Bool?
    package var error: ControlErrorBody?
    package var result: Result?
}

/// An event's data, decoded as the type the subscription carries.
package struct EventEnvelope<Payload: Decodable>: Decodable {
    package var data: Payload
}
