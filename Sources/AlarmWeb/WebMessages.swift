import AlarmKitCore
import AlarmProtocol
import FoundationEssentials
import WebPairings

/// An HTTP request as the page's routes see it: header names in lower case, the body read.
public struct WebRequest: Sendable {
    public var method: String
    public var path: String
    public var headers: [String: String]
    public var body: Data
    /// The address of the client, from its TCP connection (never from a header).
    public var peer: String

    public init(method: String, path: String, headers: [String: String], body: Data = Data(), peer: String) {
        self.method = method
        self.path = path
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
        self.peer = peer
    }

    /// The value of cookie `name`, if the request has it.
    func cookie(_ name: String) -> String? {
        for part in (headers["cookie"] ?? "").split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingASCIIWhitespace() == name {
                return String(pair[1].trimmingASCIIWhitespace())
            }
        }
        return nil
    }
}

/// An HTTP response: a whole body, or an endless stream of server-sent events.
public struct WebResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: Data
    public var events: AsyncStream<Data>?

    init(status: Int, headers: [(String, String)] = [], body: Data = Data(), events: AsyncStream<Data>? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.events = events
    }

    static func json(_ status: Int, _ value: some Encodable) -> WebResponse {
        let body = (try? JSONEncoder.web.encode(value)) ?? Data("{}".utf8)
        return WebResponse(status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body: body)
    }

    static func error(_ status: Int, _ message: String) -> WebResponse {
        json(status, ["error": message])
    }

    func setting(cookie: String) -> WebResponse {
        var response = self
        response.headers.append(("Set-Cookie", cookie))
        return response
    }
}

/// A refusal that becomes an error response.
struct WebError: Error {
    var status: Int
    var message: String
    var pairing = false

    init(_ status: Int, _ message: String, pairing: Bool = false) {
        self.status = status
        self.message = message
        self.pairing = pairing
    }

    var response: WebResponse {
        pairing ? .json(status, PairingNeeded(error: message)) : .error(status, message)
    }

    private struct PairingNeeded: Encodable {
        var error: String
        var pairing = true
    }
}

/// The HTTP status of alarmd's refusals.
extension WebApp {
    static func status(of error: ControlError) -> Int {
        switch error.code {
        case .malformed, .invalidConfiguration: 400
        case .forbidden: 403
        case .busy: 503
        // The device's state says no (NTP keeps the time; the alarm is not in that state).
        case .invalidTransition, .refused: 409
        case .notFound: 404
        default: 503
        }
    }

    static func status(of error: AlarmOperationError) -> Int {
        switch error {
        case .notFound: 404
        case .invalidTransition, .noCountdownDuration, .duplicateID: 409
        case .invalidConfiguration: 400
        case .notAuthorized: 403
        case .storageFailure, .serviceUnavailable: 503
        }
    }
}
