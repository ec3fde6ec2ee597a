import FlyingFox
import FlyingSocks
import FoundationEssentials
import Glibc
import Logging

/// The page served over HTTP by FlyingFox, with our own socket pool (see ``EpollSocketPool``).
public final class WebServer: Sendable {
    private let server: HTTPServer

    /// A server for `app` on `listen` (`HOST:PORT`, `[IPV6]:PORT` or `:PORT` for every address).
    public init(app: WebApp, listen: String, logger: Logger) throws {
        let address = try Self.address(listen)
        let pool = try EpollSocketPool()
        // The pairing poll holds a request for up to 20 s; the event stream is returned at once.
        server = HTTPServer(config: .init(
            address: address, timeout: 60, pool: pool, logger: ServerLog(logger: logger)))
        Task { [server] in
            await server.appendRoute("*") { request in
                let body = try await request.bodyData
                var headers: [String: String] = [:]
                for (name, value) in request.headers { headers[name.rawValue] = value }
                let response = await app.respond(to: WebRequest(
                    method: request.method.rawValue, path: request.path, headers: headers, body: body))
                return Self.response(response)
            }
        }
    }

    /// Serves until cancelled; throws if the address cannot be listened on.
    public func run() async throws {
        try await server.run()
    }

    /// Waits until the server listens (or has failed to).
    public func waitUntilListening() async throws {
        try await server.waitUntilListening()
    }

    /// The port the server listens on (useful with port 0).
    public var port: UInt16? {
        get async {
            switch await server.listeningAddress {
            case .ip4(_, let port)?, .ip6(_, let port)?: port
            default: nil
            }
        }
    }

    private static func response(_ response: WebResponse) -> HTTPResponse {
        var headers = HTTPHeaders()
        for (name, value) in response.headers { headers.addValue(value, for: HTTPHeader(name)) }
        let status = HTTPStatusCode(response.status, phrase: phrases[response.status] ?? "Status")
        if let events = response.events {
            return HTTPResponse(statusCode: status, headers: headers, body: HTTPBodySequence(from: EventBytes(stream: events)))
        }
        return HTTPResponse(statusCode: status, headers: headers, body: response.body)
    }

    private static let phrases: [Int: String] = [
        200: "OK", 201: "Created", 202: "Accepted", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
        404: "Not Found", 405: "Method Not Allowed", 409: "Conflict", 410: "Gone", 413: "Content Too Large",
        415: "Unsupported Media Type", 429: "Too Many Requests", 503: "Service Unavailable",
    ]

    static func address(_ text: String) throws -> any SocketAddress {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw WebAddressError(text: text)
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
            return try sockaddr_in6.inet6(ip6: host, port: port)
        }
        if host.isEmpty { return sockaddr_in6.inet6(port: port) }
        if host == "localhost" { host = "127.0.0.1" }
        return try sockaddr_in.inet(ip4: host, port: port)
    }
}

public struct WebAddressError: Error, CustomStringConvertible {
    var text: String
    public var description: String {
        "invalid listen address \"\(text)\": expected HOST:PORT (an IPv4 address), [IPV6]:PORT or :PORT"
    }
}

/// An event stream's bytes, an event at a time, for FlyingFox's chunked response body.
struct EventBytes: AsyncBufferedSequence {
    typealias Element = UInt8
    let stream: AsyncStream<Data>

    func makeAsyncIterator() -> Iterator {
        Iterator(events: stream.makeAsyncIterator())
    }

    struct Iterator: AsyncBufferedIteratorProtocol {
        var events: AsyncStream<Data>.Iterator
        var pending: [UInt8] = []

        mutating func next() async -> UInt8? {
            await nextBuffer(suggested: 1)?.first
        }

        mutating func nextBuffer(suggested count: Int) async -> [UInt8]? {
            if pending.isEmpty {
                guard let event = await events.next() else { return nil }
                pending = Array(event)
            }
            let chunk = Array(pending.prefix(Swift.max(1, count)))
            pending.removeFirst(chunk.count)
            return chunk
        }
    }
}

/// FlyingFox's log lines into swift-log: its errors only (a closed connection is not news).
struct ServerLog: FlyingSocks.Logging {
    let logger: Logger

    func logDebug(_ debug: @autoclosure () -> String) {}
    func logInfo(_ info: @autoclosure () -> String) {}
    func logWarning(_ warning: @autoclosure () -> String) { logger.debug("\(warning())") }
    func logError(_ error: @autoclosure () -> String) { logger.debug("\(error())") }
    func logCritical(_ critical: @autoclosure () -> String) { logger.error("\(critical())") }
}
