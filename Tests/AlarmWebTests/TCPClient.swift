import Foundation
import Glibc
import LinuxSupport
import Testing

/// A TCP connection to the page server as a browser or an attacker makes it, with blocking
/// sockets on threads of their own (``DetachedThread``), so that a test waiting for an answer
/// never holds a thread the server in the same process needs.
///
/// Every wait ends on something the server does (bytes, the end of the stream); the poll
/// timeout is a safety net that fails the test instead of hanging it, never part of what is
/// tested.
final class TCPClient: Sendable {
    let descriptor: Int32

    /// Connects to `port` on 127.0.0.1, from `source` (another loopback address) if given.
    init(port: UInt16, from source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TCPClientError("socket: errno \(errno)") }
        if let source {
            var local = Self.address(source, port: 0)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(descriptor)
                throw TCPClientError("bind \(source): errno \(errno)")
            }
        }
        var remote = Self.address("127.0.0.1", port: port)
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            throw TCPClientError("connect: \(String(cString: strerror(code)))")
        }
    }

    deinit {
        close(descriptor)
    }

    private static func address(_ text: String, port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, text, &address.sin_addr)
        return address
    }

    /// Sends all of `bytes`, then (with `closingWrite`) ends the stream of the client's bytes;
    /// `false` if the server closed or reset the connection first. One call is one thread's
    /// work: the bytes go out together, however busy this process's task pool is.
    @discardableResult
    func send(_ bytes: [UInt8], closingWrite: Bool = false) async -> Bool {
        await DetachedThread.run { [descriptor] in
            defer { if closingWrite { shutdown(descriptor, Int32(SHUT_WR)) } }
            return Self.send(bytes[...], on: descriptor)
        }
    }

    @discardableResult
    func send(_ text: String, closingWrite: Bool = false) async -> Bool {
        await send(Array(text.utf8), closingWrite: closingWrite)
    }

    private static func send(_ bytes: ArraySlice<UInt8>, on descriptor: Int32) -> Bool {
        var sent = bytes.startIndex
        while sent < bytes.endIndex {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Sends `prefix`, then `count` bytes of `byte` in slices, without holding them all; `false`
    /// if the server closed or reset the connection first.
    @discardableResult
    func stream(after prefix: String = "", _ byte: UInt8, count: Int) async -> Bool {
        await DetachedThread.run { [descriptor] in
            guard Self.send(Array(prefix.utf8)[...], on: descriptor) else { return false }
            let slice = [UInt8](repeating: byte, count: 64 * 1024)
            var total = 0
            while total < count {
                guard Self.send(slice[..<min(slice.count, count - total)], on: descriptor) else { return false }
                total += min(slice.count, count - total)
            }
            return true
        }
    }

    /// Everything the server sends until it closes the connection (a reset ends it too).
    func receiveAll() async -> [UInt8] {
        await DetachedThread.run { [descriptor] in
            var received: [UInt8] = []
            while let bytes = Self.receive(descriptor) { received += bytes }
            return received
        }
    }

    /// One response: status, headers (names in lower case) and a body of `Content-Length`; then
    /// `reply` is sent at once, on the same thread (a body after `100 Continue`).
    func response(thenSend reply: String? = nil) async throws -> HTTPTestResponse {
        let response = await DetachedThread.run { [descriptor] () -> HTTPTestResponse? in
            guard let response = Self.response(descriptor) else { return nil }
            if let reply { _ = Self.send(Array(reply.utf8)[...], on: descriptor) }
            return response
        }
        return try #require(response, "the connection ended without a whole response")
    }

    private static func response(_ descriptor: Int32) -> HTTPTestResponse? {
        var buffer: [UInt8] = []
        while true {
            if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                var lines = head.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
                var headers: [String: String] = [:]
                for line in lines {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    headers[parts[0].lowercased()] = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
                }
                let length = Int(headers["content-length"] ?? "0") ?? 0
                while buffer.count < end.upperBound + length {
                    guard let bytes = receive(descriptor) else { return nil }
                    buffer += bytes
                }
                return HTTPTestResponse(status: status, headers: headers, body: Array(buffer[end.upperBound..<(end.upperBound + length)]))
            }
            guard let bytes = receive(descriptor) else { return nil }
            buffer += bytes
        }
    }

    /// The next bytes, `nil` at the end of the stream or on a reset.
    private static func receive(_ descriptor: Int32) -> [UInt8]? {
        var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let polled = poll(&waiting, 1, 60_000)
            if polled < 0 && errno == EINTR { continue }
            guard polled > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            return count > 0 ? Array(chunk[..<count]) : nil
        }
    }

    /// A whole request as a browser on the page sends it.
    static func request(
        _ method: String, _ path: String, port: UInt16, host: String? = nil, cookie: String? = nil, json: String? = nil,
        extra: [String] = []
    ) -> String {
        var lines = ["\(method) \(path) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")"]
        if let cookie { lines.append("Cookie: alarm_session=\(cookie)") }
        if let json {
            lines += ["Origin: http://127.0.0.1:\(port)", "Content-Type: application/json", "Content-Length: \(json.utf8.count)"]
        }
        lines += extra
        return lines.joined(separator: "\r\n") + "\r\n\r\n" + (json ?? "")
    }
}

struct HTTPTestResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
}

struct TCPClientError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Raises this process's soft limit on open files to its hard limit: a test that opens
/// thousands of connections needs them.
func raiseOpenFileLimit() {
    var limit = rlimit()
    getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
}
