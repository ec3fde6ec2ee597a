import AlarmKitCore
import AlarmProtocol
import FoundationEssentials
import Glibc

extension ControlClient {
    /// How long a blocking request waits for the daemon before it fails as unavailable.
    static let blockingTimeout: Duration = .seconds(30)

    /// One request on a connection of its own, waited for on the calling thread: for AlarmKit's
    /// synchronous members.
    ///
    /// Nothing in it needs another thread or the cooperative pool (connect, `hello`, the request
    /// and its answer are plain system calls here), so it cannot deadlock whatever thread calls
    /// it, an actor's included; it blocks that thread for one round trip (about half a
    /// millisecond on this machine's socket). Throws as ``request(_:parameters:as:)``.
    public func requestBlocking<Parameters: Encodable, Result: Decodable>(
        _ operation: String, _ parameters: Parameters, as type: Result.Type
    ) throws -> Result {
        let fd: Int32
        do {
            fd = try connector.open()
        } catch {
            throw AlarmOperationError.serviceUnavailable("\(error)")
        }
        defer { UnixSocket.close(fd) }
        guard let hello = ControlProtocol.line(RequestMessage(id: 1, op: ControlOperationName.hello, params: NoParameters())),
            let request = ControlProtocol.line(RequestMessage(id: 2, op: operation, params: parameters))
        else {
            throw ControlError(.malformed, "the parameters of \(operation) cannot be encoded")
        }
        guard request.count <= ControlProtocol.maximumRequestSize + 1 else {
            throw ControlError(.tooLarge, "the \(operation) request is \(request.count - 1) bytes; alarmd accepts at most \(ControlProtocol.maximumRequestSize)")
        }
        let deadline = ContinuousClock.now + Self.blockingTimeout
        try Self.sendAll(hello + request, to: fd, until: deadline)
        var decoder = ControlLineDecoder(maximumLineLength: ControlProtocol.maximumResponseSize)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var helloChecked = false
        while true {
            try Self.waitFor(POLLIN, on: fd, until: deadline)
            let transfer = buffer.withUnsafeMutableBytes { UnixSocket.receive(fd, into: $0) }
            let count: Int
            switch transfer {
            case .done(let received) where received > 0: count = received
            case .wouldBlock: continue
            default:
                throw AlarmOperationError.serviceUnavailable(
                    "the connection to alarmd closed before it answered; the request may or may not have taken effect")
            }
            for output in decoder.feed(buffer[0..<count]) {
                guard case .line(let line) = output else {
                    throw ControlError(.malformed, "alarmd's response to \(operation) is too large")
                }
                if !helloChecked {
                    let answer = try Self.result(of: line, as: ControlHello.self, operation: "hello")
                    guard answer.protocol == ControlProtocol.version else {
                        throw ControlError(
                            .unsupportedVersion, "alarmd speaks protocol version \(answer.protocol); this client speaks \(ControlProtocol.version)")
                    }
                    helloChecked = true
                    continue
                }
                return try Self.result(of: line, as: type, operation: operation)
            }
        }
    }

    private static func sendAll(_ bytes: [UInt8], to fd: Int32, until deadline: ContinuousClock.Instant) throws {
        var sent = 0
        while sent < bytes.count {
            let transfer = bytes[sent...].withUnsafeBytes { UnixSocket.send(fd, $0) }
            switch transfer {
            case .done(let count): sent += count
            case .wouldBlock: try waitFor(POLLOUT, on: fd, until: deadline)
            case .failed(let error):
                throw AlarmOperationError.serviceUnavailable("cannot send to alarmd: \(String(cString: strerror(error)))")
            }
        }
    }

    private static func waitFor(_ event: Int32, on fd: Int32, until deadline: ContinuousClock.Instant) throws {
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                throw AlarmOperationError.serviceUnavailable("alarmd did not answer within \(blockingTimeout)")
            }
            var descriptor = pollfd(fd: fd, events: Int16(event), revents: 0)
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno != EINTR {
                throw AlarmOperationError.serviceUnavailable("cannot wait for alarmd: \(String(cString: strerror(errno)))")
            }
        }
    }
}
