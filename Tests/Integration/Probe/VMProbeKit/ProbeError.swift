import Glibc

/// A failure the probe reports as one line on stderr before exiting with status 1.
///
/// The message names what failed and why, in words a person reading a test log understands
/// without the source: `cannot open /tmp/x/capture.s16: No such file or directory`.
public struct ProbeError: Error, CustomStringConvertible, Sendable, Equatable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }

    /// `"<action> <path>: <strerror(code)>"`, for a failed system call on a file.
    public static func system(_ action: String, _ path: String, errno code: Int32) -> ProbeError {
        ProbeError("\(action) \(path): \(errorText(code))")
    }

    /// The C library's text for an errno value.
    public static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
