import FoundationEssentials

/// The daemon's `selfTest` operation (administrators only): the running service checks the board
/// parts it holds, so `alarmd selftest` beside `alarmd.service` needs no line or bus of its own.
///
/// ```json
/// {"v":1,"id":7,"op":"selfTest","params":{"parts":["led","display","sound","buttons"],"showSeconds":2}}
/// ```
///
/// The answer lists one ``SelfTestReport/Part`` per part asked, in the order asked. An alarm
/// always wins: the daemon refuses to start while one rings (`busy`), and an alarm that begins
/// during the check ends it at once (the parts not finished report `interrupted`).
public enum SelfTestOperation {
    /// The longest a part may be shown, in seconds.
    public static let maximumShowSeconds: Double = 60
}

/// `selfTest`'s parameters.
public struct SelfTestParameters: Codable, Hashable, Sendable {
    /// Any of `led`, `display`, `light`, `sound`, `buttons`, each at most once.
    public var parts: [String]
    /// How long the LED blinks, the pattern shows and the tone plays: 0 to
    /// ``SelfTestOperation/maximumShowSeconds``.
    public var showSeconds: Double

    public init(parts: [String], showSeconds: Double) {
        self.parts = parts
        self.showSeconds = showSeconds
    }
}

/// `selfTest`'s answer.
public struct SelfTestReport: Codable, Hashable, Sendable {
    public struct Part: Codable, Hashable, Sendable {
        /// `led`, `display`, `light`, `sound` or `buttons`.
        public var part: String
        public var passed: Bool
        /// What was done or seen, or why it failed.
        public var detail: String
        /// The part's hardware error, when it failed with one: a client gives the hint for it.
        public var fault: Fault?
        /// What to try, when the daemon knows better than the fault's kind says (the volume control).
        public var hint: String?
        /// An alarm began ringing before this part's check was done: it was left to the alarm.
        public var interrupted: Bool

        public init(
            part: String, passed: Bool, detail: String, fault: Fault? = nil, hint: String? = nil, interrupted: Bool = false
        ) {
            self.part = part
            self.passed = passed
            self.detail = detail
            self.fault = fault
            self.hint = hint
            self.interrupted = interrupted
        }
    }

    /// A hardware error as the daemon saw it: its kind (`deviceUnavailable`, `busy`,
    /// `noAcknowledge`, `io`), the device and the errno.
    public struct Fault: Codable, Hashable, Sendable {
        public var kind: String
        public var device: String
        public var errno: Int32?

        public init(kind: String, device: String, errno: Int32?) {
            self.kind = kind
            self.device = device
            self.errno = errno
        }
    }

    public var parts: [Part]

    public init(parts: [Part]) {
        self.parts = parts
    }
}
