import Glibc
import Synchronization

/// Where the flood goes: blocking IPv4 sockets, each read and write bounded by `poll` so that no
/// thread waits past the end of the run for long.
struct Target: Sendable {
    let address: String
    let port: UInt16
    let host: String
    /// The address connections are made from (another host on the network), if not the default.
    let source: String?

    init(address: String, port: UInt16, host: String?, source: String? = nil) {
        self.address = address
        self.port = port
        self.host = host ?? ""
        self.source = source
    }

    static func socketAddress(_ text: String, port: UInt16) -> sockaddr_in? {
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = port.bigEndian
        guard inet_pton(AF_INET, text, &socketAddress.sin_addr) == 1 else { return nil }
        return socketAddress
    }

    var socketAddress: sockaddr_in? { Self.socketAddress(address, port: port) }

    /// A connected socket, or `nil`.
    func connect() -> Int32? {
        guard var remote = socketAddress else { return nil }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        if let source, var local = Self.socketAddress(source, port: 0) {
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(descriptor)
                return nil
            }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Sends all of `bytes`; `false` once the peer refuses more.
    static func send(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = Glibc.send(descriptor, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    static func send(_ descriptor: Int32, _ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { send(descriptor, $0) }
    }

    /// The status of the response on `descriptor`, reading it whole (to its `Content-Length`, or
    /// to the end when the server closes), within `seconds`.
    static func status(_ descriptor: Int32, within seconds: Int32 = 10) -> Int? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self).lowercased()
                let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) }
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).filter(\.isNumber)) }
                if let length, buffer.count >= end.upperBound + length { return status }
                if length == nil, status != nil, status! >= 400 { return status }
            }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, seconds * 1000)
            // The SIGTERM that ends the flood interrupts the phone's request in flight: poll is
            // never restarted, and that request would count as unanswered.
            if polled < 0 && errno == EINTR { continue }
            guard polled > 0 else { return nil }
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                return buffer.isEmpty ? nil : Int(String(decoding: buffer.prefix(12).dropFirst(9), as: UTF8.self))
            }
            buffer += chunk[..<count]
        }
    }

    /// One request on a new connection: its response's status (`nil`: no answer).
    func request(_ text: String) -> Int? {
        guard let descriptor = connect() else { return nil }
        defer { close(descriptor) }
        guard Self.send(descriptor, text) else { return nil }
        return Self.status(descriptor)
    }
}

/// The flood's threads and what they counted.
final class Flood: Sendable {
    struct Counts: Sendable {
        var idleOpened = 0
        var idleClosed = 0
        var slowOpened = 0
        var headers = 0
        var bodies = 0
        var bodyBytes = 0
        var connectFailures = 0
        /// The answers to the flood's requests by status (0: none).
        var statuses: [Int: Int] = [:]
    }

    /// Where the flood goes, from the flood's own address.
    let target: Target
    private let state = Mutex(Counts())

    init(target: Target) {
        self.target = target
    }

    var counts: Counts { state.withLock { $0 } }

    private func count(_ change: (inout Counts) -> Void) {
        state.withLock { change(&$0) }
    }

    private func connect() -> Int32? {
        guard let descriptor = target.connect() else {
            count { $0.connectFailures += 1 }
            usleep(10_000)
            return nil
        }
        return descriptor
    }

    /// Holds `count` connections that never send anything, opening another for each one closed.
    func holdIdle(_ total: Int, until end: Double) {
        var open: [Int32] = []
        while monotonicSeconds() < end {
            while open.count < total, monotonicSeconds() < end, let descriptor = connect() {
                open.append(descriptor)
                count { $0.idleOpened += 1 }
            }
            var waiting = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&waiting, nfds_t(waiting.count), 200) > 0 else { continue }
            var scratch = [UInt8](repeating: 0, count: 4096)
            for entry in waiting where entry.revents != 0 {
                let read = scratch.withUnsafeMutableBytes { recv(entry.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if read <= 0 {
                    close(entry.fd)
                    open.removeAll { $0 == entry.fd }
                    count { $0.idleClosed += 1 }
                }
            }
        }
        open.forEach { close($0) }
    }

    /// Sends requests one byte a second on `total` connections, opening another for each closed.
    func sendSlowly(_ total: Int, until end: Double) {
        let request = Array("GET /api/state HTTP/1.1\r\nHost: \(target.host)\r\nX-Slow: ".utf8)
        var open: [(descriptor: Int32, sent: Int)] = []
        while monotonicSeconds() < end {
            while open.count < total, monotonicSeconds() < end, let descriptor = connect() {
                open.append((descriptor, 0))
                count { $0.slowOpened += 1 }
            }
            for index in open.indices.reversed() {
                let byte = open[index].sent < request.count ? request[open[index].sent] : UInt8(ascii: "a")
                if [byte].withUnsafeBytes({ Target.send(open[index].descriptor, $0) }) {
                    open[index].sent += 1
                } else {
                    close(open[index].descriptor)
                    open.remove(at: index)
                }
            }
            sleep(1)
        }
        open.forEach { close($0.descriptor) }
    }

    /// Sends a request with a 1 MiB header, reads the answer, and again.
    func sendHugeHeaders(until end: Double) {
        let filler = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
        while monotonicSeconds() < end {
            guard let descriptor = connect() else { continue }
            count { $0.headers += 1 }
            if Target.send(descriptor, "GET / HTTP/1.1\r\nHost: \(target.host)\r\nX-Big: ") {
                for _ in 0..<16 {
                    guard filler.withUnsafeBytes({ Target.send(descriptor, $0) }) else { break }
                }
            }
            let status = Target.status(descriptor) ?? 0
            count { $0.statuses[status, default: 0] += 1 }
            close(descriptor)
        }
    }

    /// Posts a 512 MiB body, streamed (never held), until refused; reads the answer, and again.
    func sendHugeBodies(until end: Double) {
        let size = 512 << 20
        let filler = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        while monotonicSeconds() < end {
            guard let descriptor = connect() else { continue }
            count { $0.bodies += 1 }
            let head = "POST /api/alarms HTTP/1.1\r\nHost: \(target.host)\r\nContent-Type: application/json\r\nContent-Length: \(size)\r\n\r\n"
            if Target.send(descriptor, head) {
                var sent = 0
                while sent < size, monotonicSeconds() < end, filler.withUnsafeBytes({ Target.send(descriptor, $0) }) {
                    sent += filler.count
                }
                count { $0.bodyBytes += sent }
            }
            let status = Target.status(descriptor) ?? 0
            count { $0.statuses[status, default: 0] += 1 }
            close(descriptor)
        }
    }
}
