import AlarmEngine
import AlarmKit
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

/// `schedule`'s parameters.
struct ScheduleParameters: Codable, Equatable, Sendable {
    var id: Alarm.ID
    var definition: AlarmDefinition
}

/// The parameters of `stop`, `countdown`, `pause`, `resume` and `cancel`.
struct AlarmIDParameters: Codable, Equatable, Sendable {
    var id: Alarm.ID
}

/// `unsubscribe`'s parameters.
struct UnsubscribeParameters: Codable, Sendable {
    var subscription: Int
}

/// `setAuthorization`'s parameters.
struct SetAuthorizationParameters: Codable, Sendable {
    var uid: UInt32
    var state: AlarmManager.AuthorizationState
}

/// Parameters of an operation that takes none.
struct NoParameters: Codable, Sendable {}

/// A request as a client sends it.
struct RequestMessage<Parameters: Encodable>: Encodable {
    var v = ControlProtocol.version
    var id: Int64
    var op: String
    var params: Parameters
}

/// A successful response. `result` is always present, `null` for operations that return nothing.
struct SuccessMessage<Result: Encodable>: Encodable {
    var id: Int64
    var result: Result

    private enum CodingKeys: String, CodingKey { case v, id, ok, result }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ControlProtocol.version, forKey: .v)
        try container.encode(id, forKey: .id)
        try container.encode(true, forKey: .ok)
        try container.encode(result, forKey: .result)
    }
}

/// A failed response; `id` is `null` when the request's could not be read.
struct FailureMessage: Encodable {
    var id: Int64?
    var error: ControlErrorBody

    private enum CodingKeys: String, CodingKey { case v, id, ok, error }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ControlProtocol.version, forKey: .v)
        try container.encode(id, forKey: .id)
        try container.encode(false, forKey: .ok)
        try container.encode(error, forKey: .error)
    }
}

/// An event of a subscription.
struct EventMessage<Payload: Encodable>: Encodable {
    var v = ControlProtocol.version
    var event: String
    var subscription: Int
    var data: Payload
}

/// What a client needs to route a line from the daemon: a response (by `id`) or an event (by
/// `subscription`).
struct IncomingEnvelope: Decodable {
    var v: Int?
    var id: Int64?
    var ok: Bool?
    var event: String?
    var subscription: Int?
    var error: ControlErrorBody?
}

/// A response's result, decoded as the type the caller expects.
struct ResultEnvelope<Result: Decodable>: Decodable {
    var result: Result
}

/// A whole response in one parse: its outcome, and the result as the type the caller expects.
struct ResponseEnvelope<Result: Decodable>: Decodable {
    var ok: Bool?
    var error: ControlErrorBody?
    var result: Result?
}

/// An event's data, decoded as the type the subscription carries.
struct EventEnvelope<Payload: Decodable>: Decodable {
    var data: Payload
}
