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
    /// millisecond on this machine's socket). Throws as ``call(_:_:)``.
    public func callBlocking<Parameters, Answer>(_ endpoint: ControlEndpoint<Parameters, Answer>, _ parameters: Parameters) throws -> Answer {
        let operation = endpoint.operation.name
        let type = Answer.self
        let hello = try ControlChannel.requestLine(id: 1, ControlOperation.hello.name, ControlHelloParameters(app: app))
        let request = try ControlChannel.requestLine(id: 2, operation, parameters)
        let fd: Int32
        do {
            fd = try connector.open()
        } catch {
            throw AlarmOperationError.serviceUnavailable("\(error)")
        }
        defer { UnixSocket.close(fd) }
        let deadline = ContinuousClock.now + Self.blockingTimeout
        var output = OutputBuffer(limit: hello.count + request.count)
        _ = output.append(hello)
        _ = output.append(request)
        while true {
            if let error = output.write(to: fd) {
                throw AlarmOperationError.serviceUnavailable("cannot send to alarmd: \(String(cString: strerror(error)))")
            }
            if output.isEmpty { break }
            try Self.waitFor(POLLOUT, on: fd, until: deadline)
        }
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
                    _ = try Self.hello(from: line)
                    helloChecked = true
                    continue
                }
                return try Self.result(of: line, as: type, operation: operation)
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
