import FlyingSocks
import FoundationEssentials
import Glibc

/// One client's connection: its requests read one at a time, strictly and within limits, and
/// answered by the page.
///
/// Every request is refused before anything else is done with it when its head breaks a rule
/// (``HTTPHeadParser``), lacks a `Host` or names another (``ClockHostNames``: 421), or frames its
/// body badly or too large (``HTTPRequestHead/bodyFraming(maximumBody:)``: 413 before any of the
/// body is read). A refused connection is answered, then closed after a short linger.
struct HTTPConnection: Sendable {
    let socket: AsyncSocket
    let id: ConnectionTable.ID
    let table: ConnectionTable
    /// The client's address, from the TCP connection.
    let peer: String
    /// The address and port the client reached.
    let local: (address: String, port: UInt16)?
    let hosts: ClockHostNames
    let limits: HTTPLimits
    /// The largest body of the request with this head (as a request with no body).
    let bodyLimit: @Sendable (WebRequest) -> Int
    let respond: @Sendable (WebRequest) async -> WebResponse

    /// The largest read: what one `read` asks the kernel for.
    static let readSize = 4096
    /// What is read and dropped after a refusal, at most, before the connection is closed.
    static let lingerBytes = 256 * 1024

    /// Serves requests until the client closes, a request asks to close, a deadline passes or
    /// one is refused; then closes the socket.
    func serve() async {
        var buffer: [UInt8] = []
        defer {
            table.remove(id)
            try? socket.close()
        }
        do {
            while try await serveRequest(&buffer) {}
        } catch let refusal as HTTPRefusal {
            await refuse(refusal)
        } catch {
            // The client went away, the connection was closed for room, or the server stops.
        }
    }

    /// Reads, checks and answers one request; whether the connection stays open for another.
    private func serveRequest(_ buffer: inout [UInt8]) async throws -> Bool {
        table.enter(.waiting, id)
        var parser = HTTPHeadParser(limits: limits)
        var reading = false
        let head: HTTPRequestHead
        while true {
            if case .complete(let parsed, let length) = try parser.parse(buffer[...]) {
                head = parsed
                buffer.removeFirst(length)
                break
            }
            if !reading, parser.hasStarted {
                reading = true
                table.enter(.reading, id)
            }
            guard try await read(into: &buffer) else {
                guard reading else { return false }
                throw table.expired(id) ? HTTPRefusal(408, "the request took too long to arrive")
                    : HTTPRefusal(400, "the connection ended inside a request")
            }
        }
        if !reading { table.enter(.reading, id) }
        try head.checkFields()
        guard let authority = head.authority, hosts.allows(authority, local: local) else {
            throw HTTPRefusal(421, "this is the alarm clock's page; it does not answer for that host name")
        }
        var headers: [String: String] = [:]
        for field in head.fields {
            headers[field.name] = headers[field.name].map { $0 + ", " + field.value } ?? field.value
        }
        // The host that was checked is the one the page compares `Origin` with: an absolute-form
        // target names it in place of `Host` (RFC 9112 3.2.2).
        headers["host"] = authority
        var request = WebRequest(method: head.method, path: head.originFormTarget, headers: headers, peer: peer)
        let maximumBody = bodyLimit(request)
        let framing = try head.bodyFraming(maximumBody: maximumBody)
        if framing != .none, try head.expectsContinue() {
            // The body is still a part of the request: it has the request's time to arrive.
            try await write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8), then: .reading)
        }
        request.body = try await readBody(framing, maximumBody: maximumBody, from: &buffer)
        table.enter(.busy, id)
        let response = await respond(request)
        if let events = response.events {
            await stream(response, events: events, chunked: head.minorVersion == 1)
            return false
        }
        try await write(Self.encode(response, body: head.method == "HEAD" ? nil : response.body, closing: !head.keepsAlive))
        return head.keepsAlive
    }

    /// Reads what arrives into `buffer`; `false` at the end of the stream (the client's, or a
    /// shutdown for a deadline or for room).
    private func read(into buffer: inout [UInt8]) async throws -> Bool {
        do {
            buffer += try await socket.read(atMost: Self.readSize)
            return true
        } catch SocketError.disconnected {
            return false
        }
    }

    private func readBody(_ framing: HTTPBodyFraming, maximumBody: Int, from buffer: inout [UInt8]) async throws -> Data {
        switch framing {
        case .none:
            return Data()
        case .length(let count):
            while buffer.count < count {
                guard try await read(into: &buffer) else { throw endedInBody() }
            }
            defer { buffer.removeFirst(count) }
            return Data(buffer[..<count])
        case .chunked:
            var decoder = ChunkedBodyDecoder(maximumBody: maximumBody)
            let maximumWire = ChunkedBodyDecoder.maximumWireBytes(forBody: maximumBody)
            while true {
                if case .complete(let length) = try decoder.decode(buffer[...]) {
                    buffer.removeFirst(length)
                    return Data(decoder.body)
                }
                // The framing is held until the body ends: a body of one-byte chunks behind long
                // extensions would otherwise hold megabytes for 16 KiB of body.
                guard buffer.count <= maximumWire else {
                    throw HTTPRefusal(413, "chunked request body larger than \(maximumWire) bytes with its framing")
                }
                guard try await read(into: &buffer) else { throw endedInBody() }
            }
        }
    }

    private func endedInBody() -> HTTPRefusal {
        table.expired(id) ? HTTPRefusal(408, "the request took too long to arrive") : HTTPRefusal(400, "the connection ended inside a request body")
    }

    /// Writes `data` within the write deadline, then moves the connection to `phase`.
    private func write(_ data: Data, then phase: ConnectionTable.Phase = .busy) async throws {
        table.enter(.writing, id)
        try await socket.write(data)
        table.enter(phase, id)
    }

    /// An event stream: the head, then each event as it comes (a chunk each on HTTP/1.1), until
    /// the stream ends or the client goes away, which a read that ends notices at once.
    private func stream(_ response: WebResponse, events: AsyncStream<Data>, chunked: Bool) async {
        let head = Self.encodeHead(response, length: nil, closing: !chunked)
        guard (try? await write(head)) != nil else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events {
                    let framed = chunked ? Data(String(event.count, radix: 16).utf8) + Data("\r\n".utf8) + event + Data("\r\n".utf8) : event
                    guard (try? await write(framed)) != nil else { return }
                }
                if chunked { try? await write(Data("0\r\n\r\n".utf8)) }
            }
            group.addTask {
                // Nothing more is expected from the client: bytes are dropped, the end ends it.
                var dropped = 0
                while dropped < Self.lingerBytes, let bytes = try? await socket.read(atMost: Self.readSize) {
                    dropped += bytes.count
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Answers a refused request and closes: the answer, then what the client still sends is
    /// read and dropped for a moment, so that its network stack does not reset the connection
    /// before it has read the answer.
    private func refuse(_ refusal: HTTPRefusal) async {
        let response = WebResponse.error(refusal.status, refusal.reason)
        guard (try? await write(Self.encode(response, body: response.body, closing: true))) != nil else { return }
        shutdown(socket.socket.file.rawValue, Int32(SHUT_WR))
        table.enter(.lingering, id)
        var dropped = 0
        while dropped < Self.lingerBytes, let bytes = try? await socket.read(atMost: Self.readSize) {
            dropped += bytes.count
        }
    }

    // MARK: - Responses

    static func encode(_ response: WebResponse, body: Data?, closing: Bool) -> Data {
        encodeHead(response, length: response.body.count, closing: closing) + (body ?? Data())
    }

    /// The status line and headers; `length` `nil` for a stream (chunked unless `closing`).
    static func encodeHead(_ response: WebResponse, length: Int?, closing: Bool) -> Data {
        var head = "HTTP/1.1 \(response.status) \(phrases[response.status] ?? "Status")\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        if let length {
            head += "Content-Length: \(length)\r\n"
        } else if !closing {
            head += "Transfer-Encoding: chunked\r\n"
        }
        if closing { head += "Connection: close\r\n" }
        return Data((head + "\r\n").utf8)
    }

    static let phrases: [Int: String] = [
        100: "Continue", 200: "OK", 201: "Created", 202: "Accepted", 400: "Bad Request", 401: "Unauthorized",
        403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout", 409: "Conflict", 410: "Gone",
        413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type", 417: "Expectation Failed",
        421: "Misdirected Request", 429: "Too Many Requests", 431: "Request Header Fields Too Large", 500: "Internal Server Error",
        501: "Not Implemented", 503: "Service Unavailable", 505: "HTTP Version Not Supported",
    ]
}
