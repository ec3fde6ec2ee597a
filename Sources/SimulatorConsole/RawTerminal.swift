import CTerminal
import Glibc

/// The terminal the simulator runs in, switched to raw-ish mode with its screen taken over, and
/// put back however the program ends.
///
/// In raw mode keys arrive one at a time without echo, and no key makes a signal: Ctrl-C is byte 3
/// (``SimulatorKey/quit``), so the program shuts down in order. Output processing stays on, so
/// `"\n"` still starts a new line. A terminal `output` shows the alternate screen with the cursor
/// hidden (as `less` and `vim` do).
///
/// Everything is restored by ``restore()``, `deinit`, `exit()`, and a signal handler written in C
/// (only async-signal-safe calls may run there). On SIGTERM, SIGHUP, SIGQUIT and SIGINT it restores
/// the terminal and re-raises the signal with its default action, so the shell sees the usual
/// status (143 for SIGTERM). On a crash (SIGILL or SIGTRAP from a failed `precondition`, SIGSEGV,
/// SIGBUS, SIGFPE, SIGABRT) it restores the terminal and hands the signal to the previous handler,
/// so Swift's backtrace prints on the normal screen with echo back on.
/// - Important: keep the ``RawTerminal`` of ``Setup/raw(_:)`` until the end: releasing it restores
///   the terminal (`if case .raw = try RawTerminal.enter()` would restore it at once).
/// - Important: one raw terminal per process. A handler for those signals installed after
///   ``enter(input:output:)`` replaces the restoring one: call ``restore()`` from it. One
///   installed before is set aside until ``restore()``; a signal ignored before (`SIG_IGN`, as
///   `nohup` leaves SIGHUP, or as `DispatchSource` signal sources need) stays ignored.
public final class RawTerminal: Sendable {
    public enum Setup: Sendable {
        case raw(RawTerminal)
        /// The input is a pipe, a file or /dev/null (a script, CI): nothing was changed, and there
        /// are no keys to read.
        case notATerminal
    }

    public let input: Int32
    /// The descriptor the screen is drawn on, or `nil` if it is not a terminal (then the screen
    /// was not switched, and the caller should print plain lines rather than redraw).
    public let output: Int32?

    private init(input: Int32, output: Int32?) {
        self.input = input
        self.output = output
    }

    deinit { restore() }

    /// Switches `input` to raw mode and a terminal `output` to the alternate screen. Throws if
    /// `input` cannot be set up or a terminal is raw already.
    ///
    /// The corresponding C function is `alarmd_terminal_enter` (`tcgetattr`, `tcsetattr`,
    /// `sigaction`).
    public static func enter(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) throws(TerminalError) -> Setup {
        guard isatty(input) == 1 else { return .notATerminal }
        let screen: Int32? = isatty(output) == 1 ? output : nil
        let result = alarmd_terminal_enter(input, screen ?? -1)
        switch result {
        case 0: return .raw(RawTerminal(input: input, output: screen))
        case -ENOTTY: return .notATerminal
        default: throw TerminalError(operation: "raw mode", errno: -result)
        }
    }

    /// Restores the terminal's settings, the main screen and the cursor, and the previous signal
    /// handlers. Safe to call more than once and from any thread.
    public func restore() {
        alarmd_terminal_restore()
    }

    /// The size of the terminal on `output` (or `input` if output is not a terminal) now: it
    /// changes when a person resizes the window or a tmux pane.
    public var size: TerminalSize? {
        TerminalSize(of: output ?? input)
    }
}

/// The size of a terminal, in character cells.
public struct TerminalSize: Hashable, Sendable {
    public var rows: Int
    public var columns: Int

    public init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
    }

    /// The size of the terminal on `descriptor`, or `nil` if it is not a terminal or does not
    /// know its size (a serial line reports 0x0).
    ///
    /// The corresponding C call is `ioctl(fd, TIOCGWINSZ)`.
    public init?(of descriptor: Int32) {
        var rows: Int32 = 0
        var columns: Int32 = 0
        guard alarmd_terminal_size(descriptor, &rows, &columns) == 0, rows > 0, columns > 0 else { return nil }
        self.init(rows: Int(rows), columns: Int(columns))
    }
}

public struct TerminalError: Error, Hashable, Sendable, CustomStringConvertible {
    public let operation: String
    public let errno: Int32

    public init(operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    public var description: String {
        errno == EBUSY ? "\(operation): a terminal is already raw" : "\(operation) failed: \(String(cString: strerror(errno)))"
    }
}
