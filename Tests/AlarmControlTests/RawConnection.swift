import FoundationEssentials
import Glibc
import LinuxSupport
import Synchronization

@testable import AlarmControl
@testable import AlarmProtocol

/// A connection that sends whatever bytes a test gives it and reads the daemon's lines, with
/// every blocking wait on a thread of its own and bounded by a timeout (never a sleep).
final class RawConnection: Sendable {
    enum Read: Equatable {
        case line([UInt8])
        case closed
        case timedOut
    }

    private struct State {
        var decoder = ControlLineDecoder(maximumLineLength: ControlProtocol.maximumResponseSize)
        var lines: [[UInt8]] = []
        /// Bytes received so far, complete lines or not.
        var received = 0
        var ended = false
        var fd: Int32?
    }

    private let state: Mutex<State>

    init(fd: Int32) {
        state = Mutex(State(fd: fd))
    }

    deinit {
        close()
    }

    func close() {
        state.withLock { state in
            if let fd = state.fd { Glibc.close(fd) }
            state.fd = nil
        }
    }

    /// Shuts the sending side, as `nc -N` does after its input: the daemon still answers.
    func finishSending() {
        state.withLock { state in
            if let fd = state.fd { _ = shutdown(fd, Int32(SHUT_WR)) }
        }
    }

    /// Sends all of `bytes`; `false` if the daemon closed the connection first or it stalled for
    /// `timeout`.
    @discardableResult
    func send(_ bytes: [UInt8], timeout: Duration = .seconds(60)) async -> Bool {
        guard let fd = state.withLock({ $0.fd }) else { return false }
        return await DetachedThread.run {
            var offset = 0
            while offset < bytes.count {
                var pollDescriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                guard poll(&pollDescriptor, 1, Self.milliseconds(timeout)) > 0 else { return false }
                let transfer = bytes.withUnsafeBytes { UnixSocket.send(fd, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
                switch transfer {
                case .done(let count): offset += count
                case .wouldBlock: continue
                case .failed: return false
                }
            }
            return true
        }
    }

    /// The next line from the daemon, or `.closed` once it closed the connection.
    func next(timeout: Duration = .seconds(60)) async -> Read {
        if let line = takeLine() { return line }
        guard let fd = state.withLock({ $0.fd }) else { return .closed }
        return await DetachedThread.run { [self] in
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                if let line = takeLine() { return line }
                var pollDescriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&pollDescriptor, 1, Self.milliseconds(timeout)) > 0 else { return .timedOut }
                switch buffer.withUnsafeMutableBytes({ UnixSocket.receive(fd, into: $0) }) {
                case .done(0), .failed:
                    state.withLock { $0.ended = true }
                case .done(let count):
                    feed(buffer[0..<count])
                case .wouldBlock:
                    continue
                }
            }
        }
    }

    /// Reads until at least `count` bytes have arrived since the connection opened, complete
    /// lines or not; `false` if it closed first or stalled for `timeout`.
    func receive(atLeast count: Int, timeout: Duration = .seconds(60)) async -> Bool {
        guard let fd = state.withLock({ $0.fd }) else { return false }
        return await DetachedThread.run { [self] in
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while state.withLock({ $0.received }) < count {
                var pollDescriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&pollDescriptor, 1, Self.milliseconds(timeout)) > 0 else { return false }
                switch buffer.withUnsafeMutableBytes({ UnixSocket.receive(fd, into: $0) }) {
                case .done(0), .failed:
                    state.withLock { $0.ended = true }
                    return false
                case .done(let received):
                    feed(buffer[0..<received])
                case .wouldBlock:
                    continue
                }
            }
            return true
        }
    }

    /// Reads until `count` more bytes have arrived than had so far, complete lines or not.
    func receive(more count: Int, timeout: Duration = .seconds(60)) async -> Bool {
        await receive(atLeast: state.withLock { $0.received } + count, timeout: timeout)
    }

    private func feed(_ bytes: ArraySlice<UInt8>) {
        state.withLock { state in
            state.received += bytes.count
            for output in state.decoder.feed(bytes) {
                if case .line(let line) = output { state.lines.append(line) }
            }
        }
    }

    /// The next line decoded as a response or event.
    /// The next line as the daemon wrote it, without its newline.
    func nextLine(timeout: Duration = .seconds(60)) async -> String? {
        guard case .line(let line) = await next(timeout: timeout) else { return nil }
        return String(decoding: line, as: UTF8.self)
    }

    func nextMessage(timeout: Duration = .seconds(60)) async -> JSONValue? {
        guard case .line(let line) = await next(timeout: timeout) else { return nil }
        return try? JSONDecoder().decode(JSONValue.self, from: Data(line))
    }

    /// Reads and drops lines until the daemon closes the connection; `false` on a timeout.
    func drainUntilClosed(timeout: Duration = .seconds(60)) async -> Bool {
        while true {
            switch await next(timeout: timeout) {
            case .line: continue
            case .closed: return true
            case .timedOut: return false
            }
        }
    }

    private func takeLine() -> Read? {
        state.withLock { state in
            if !state.lines.isEmpty { return .line(state.lines.removeFirst()) }
            return state.ended ? .closed : nil
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        Int32(clamping: duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
