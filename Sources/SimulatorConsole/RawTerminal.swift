import CLinuxSupport
import Glibc

/// The terminal the simulator runs in, switched to raw-ish mode with its screen taken over, and
/// put back however the program ends.
///
/// ```swift
/// switch try RawTerminal.enter() {
/// case .raw(let terminal):
///     defer { terminal.restore() }
///     for await key in KeyReader.keys(from: terminal.input) { ... }
/// case .notATerminal:
///     // stdin is a pipe or /dev/null (a script, CI): run without keys, nothing was changed
/// }
/// ```
///
/// In raw mode keys arrive one at a time without echo, and no key makes a signal: Ctrl-C is byte 3
/// (``SimulatorKey/quit``), so the program shuts down in order. Output processing stays on, so
/// `"\n"` still starts a new line. If `output` is a terminal too, it shows the alternate screen
/// with the cursor hidden (as `less` and `vim` do), and the shell's screen comes back on restore.
///
/// Everything is restored by ``restore()``, by `deinit`, by `exit()`, and from a signal handler
/// (written in C, since only async-signal-safe calls may run there: `tcsetattr`, `write`,
/// `sigaction`, `raise`). On SIGTERM, SIGHUP, SIGQUIT and SIGINT the handler restores the terminal,
/// then re-raises the signal with its default action: the process dies of it, and the shell sees
/// the usual status (143 for SIGTERM). On a crash (SIGILL or SIGTRAP from a failed `precondition`,
/// SIGSEGV, SIGBUS, SIGFPE, SIGABRT) it restores the terminal and hands the signal to its previous
/// handler, so Swift's backtrace still prints, now on the normal screen with echo back on.
/// - Important: keep the ``RawTerminal`` of ``Setup/raw(_:)`` until the end: releasing it restores
///   the terminal (`if case .raw = try RawTerminal.enter()` would restore it at once).
/// - Important: one raw terminal per process. A handler for those signals installed after
///   ``enter(input:output:)`` replaces the restoring one: call ``restore()`` from it. One
///   installed before is set aside until ``restore()``; a signal ignored before (`SIG_IGN`, as
///   `nohup` leaves SIGHUP, or as `DispatchSource` signal sources need) stays ignored.
public final class RawTerminal: Sendable {
    /// What ``RawTerminal/enter(input:output:)`` did.
    public enum Setup: Sendable {
        /// The input is a terminal, now raw; restore it when done.
        case raw(RawTerminal)
        /// The input is not a terminal (a pipe, a file, /dev/null): nothing was changed, and there
        /// are no keys to read.
        case notATerminal
    }

    /// The terminal descriptor keys are read from.
    public let input: Int32
    /// The descriptor the screen is drawn on, or `nil` if it is not a terminal (then the screen
    /// was not switched, and the caller should print plain lines rather than redraw).
    public let output: Int32?

    private init(input: Int32, output: Int32?) {
        self.input = input
        self.output = output
    }

    deinit { restore() }

    /// Switches `input` to raw mode and, if `output` is a terminal, to the alternate screen with
    /// the cursor hidden.
    ///
    /// The corresponding C function is `alarmd_terminal_enter` (`tcgetattr`, `tcsetattr`,
    /// `sigaction`).
    /// - Throws: ``TerminalError`` if `input` is a terminal that cannot be set up, or a terminal
    ///   is raw already.
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

/// A terminal call failed.
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
