import AlarmProtocol

/// The one place that maps an operation to its handler: the protocol's own, which
/// ``ControlServer`` serves on each connection, and the daemon's (`status`, `settings`, ...),
/// each registered with its ``ControlEndpoint``, so its parameters and answer are the types both
/// ends share.
///
/// ```swift
/// var handlers = ControlHandlers()
/// handlers.register(.sounds) { call, _ in try soundFiles() }
/// ```
///
/// A request is checked, then handled, the same way for every operation: `forbidden` first if
/// the operation is for administrators and the caller is not one, then its `params` decoded as
/// the endpoint's parameters (`malformed` naming the field), then the handler. An operation no
/// handler serves is `unknownOperation`.
public struct ControlHandlers: Sendable {
    /// Handles one request on its session; `decided`: a request back from an authorization prompt.
    typealias Body = @Sendable (ControlSession, ControlRequest, _ decided: Bool) async throws -> ControlSession.Outcome

    struct Entry: Sendable {
        var operation: ControlOperation
        var body: Body
    }

    private(set) var entries: [String: Entry] = [:]

    public init() {}

    /// Serves `endpoint` with `handle`, which gets the caller and the decoded parameters and
    /// returns the response's `result`. Errors are sent as ``ControlErrorBody/init(_:)`` makes
    /// them; a ``ControlRequestError`` with its own code and message. Registering an operation
    /// again replaces its handler; the protocol's own operations are the server's and are not
    /// replaced.
    public mutating func register<Parameters, Answer>(
        _ endpoint: ControlEndpoint<Parameters, Answer>,
        _ handle: @escaping @Sendable (ControlCall, Parameters) async throws -> Answer
    ) {
        serve(endpoint) { session, request, parameters, _ in
            .result(try await handle(ControlCall(peer: session.peer, request: request), parameters))
        }
    }

    /// Serves `endpoint` on the session itself: the protocol's own operations, which subscribe,
    /// park or answer with lines already encoded.
    mutating func serve<Parameters, Answer>(
        _ endpoint: ControlEndpoint<Parameters, Answer>,
        _ body: @escaping @Sendable (ControlSession, ControlRequest, Parameters, _ decided: Bool) async throws -> ControlSession.Outcome
    ) {
        entries[endpoint.operation.name] = Entry(operation: endpoint.operation) { session, request, decided in
            try await body(session, request, try request.parameters(Parameters.self), decided)
        }
    }

    /// These handlers and `other`'s; `other`'s where both serve an operation.
    func merging(_ other: ControlHandlers) -> ControlHandlers {
        var merged = self
        merged.entries.merge(other.entries) { _, theirs in theirs }
        return merged
    }

    /// The operations served: what a request's `op` may name.
    var operations: Set<String> { Set(entries.keys) }

    subscript(_ operation: String) -> Entry? { entries[operation] }
}
