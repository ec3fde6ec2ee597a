import Glibc

/// systemd's end of the notification protocol, for tests: a datagram socket bound to a path or an
/// abstract name, written independently of the C code under test.
public final class DatagramReceiver {
    public let descriptor: Int32
    /// As `NOTIFY_SOCKET` would say it: `/path` or `@name`.
    public let address: String

    /// Binds to the socket file `path`.
    public init(path: String) throws {
        (descriptor, address) = (try Self.bind(Array(path.utf8) + [0]), path)
    }

    /// Binds to the abstract `name`; the address is then `@name`.
    public init(abstractName name: String) throws {
        (descriptor, address) = (try Self.bind([0] + Array(name.utf8)), "@" + name)
    }

    deinit {
        close(descriptor)
    }

    /// Every datagram waiting now, without blocking: a datagram to a local socket is queued by the
    /// time the sender's call returns.
    public func pending() -> [String] {
        var messages: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return messages }
            messages.append(String(decoding: buffer[0..<count], as: UTF8.self))
        }
    }

    private static func bind(_ pathBytes: [UInt8]) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw ReceiverError(message: "socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, length) }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw ReceiverError(message: "bind: errno \(code)")
        }
        return descriptor
    }
}

public struct ReceiverError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    public init(message: String) {
        self.message = message
    }
}
