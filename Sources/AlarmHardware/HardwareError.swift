import Glibc

/// A hardware operation that failed, with what a caller needs to decide and a log needs to say.
///
/// Callers switch on ``kind``; ``device`` (`"/dev/i2c-1@0x27"`, `"gpiochip0:17"`, `"hw:0"`) and
/// ``errno`` are for logs and the display. Faults degrade, never kill: a dead speaker still leaves
/// the LED and the display alerting.
public struct HardwareError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, in the terms a caller acts on (after embedded-hal's `ErrorKind`).
    public enum Kind: String, Hashable, Sendable {
        /// The device is not there (unplugged, wrong address, no such chip or card).
        case deviceUnavailable
        /// Another user holds it; trying again later may work.
        case busy
        /// An I2C device did not acknowledge.
        case noAcknowledge
        /// Any other input/output error.
        case io
    }

    public var kind: Kind
    public var device: String
    public var errno: Int32?

    public init(_ kind: Kind, device: String, errno: Int32? = nil) {
        self.kind = kind
        self.device = device
        self.errno = errno
    }

    /// `/dev/i2c-1@0x27: not answering (No such device or address, errno 6)`.
    public var description: String {
        let reason = errno.map { " (\(String(cString: strerror($0))), errno \($0))" } ?? ""
        return "\(device): \(kind.phrase)" + reason
    }
}

extension HardwareError.Kind {
    public var phrase: String {
        switch self {
        case .deviceUnavailable: "not available"
        case .busy: "busy"
        case .noAcknowledge: "not answering"
        case .io: "input/output error"
        }
    }
}
