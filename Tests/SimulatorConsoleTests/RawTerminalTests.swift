import CTestSupport
import Glibc
import SimulatorConsole
import Testing

/// Raw mode on a real pseudo-terminal: the settings change, and come back. The raw terminal is
/// process-wide, so these run one at a time.
@Suite(.serialized, .timeLimit(.minutes(5))) struct RawTerminalTests {
    /// A pseudo-terminal pair: `terminal` is what the program sees, `screen` what a terminal
    /// emulator (tmux) would read.
    final class PseudoTerminal {
        let screen: Int32
        let terminal: Int32

        init() throws {
            var screen: Int32 = -1
            var terminal: Int32 = -1
            try #require(alarmd_pseudo_terminal_open(&screen, &terminal) == 0)
            self.screen = screen
            self.terminal = terminal
        }

        deinit {
            close(terminal)
            close(screen)
        }

        var settings: termios {
            var settings = termios()
            tcgetattr(terminal, &settings)
            return settings
        }

        /// What the program wrote to the terminal so far.
        func output(count: Int) -> String {
            var bytes: [UInt8] = []
            var descriptor = pollfd(fd: screen, events: Int16(POLLIN), revents: 0)
            while bytes.count < count, poll(&descriptor, 1, 5_000) == 1 {
                var buffer = [UInt8](repeating: 0, count: 256)
                let read = buffer.withUnsafeMutableBytes { Glibc.read(screen, $0.baseAddress, $0.count) }
                guard read > 0 else { break }
                bytes += buffer[..<read]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    private func flags(_ settings: termios) -> [tcflag_t] {
        [settings.c_iflag, settings.c_oflag, settings.c_cflag, settings.c_lflag]
    }

    @Test func rawModeIsEnteredAndRestored() throws {
        let pty = try PseudoTerminal()
        let before = pty.settings
        #expect(before.c_lflag & tcflag_t(ECHO | ICANON | ISIG) == tcflag_t(ECHO | ICANON | ISIG))

        guard case .raw(let terminal) = try RawTerminal.enter(input: pty.terminal, output: pty.terminal) else {
            Issue.record("a pseudo-terminal is a terminal")
            return
        }
        let raw = pty.settings
        #expect(raw.c_lflag & tcflag_t(ECHO | ICANON | ISIG | IEXTEN) == 0)
        #expect(raw.c_iflag & tcflag_t(IXON | ICRNL) == 0)
        #expect(raw.c_oflag & tcflag_t(OPOST) != 0, "output processing stays on, so \\n still works")
        #expect(terminal.output == pty.terminal)
        let enter = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J"
        #expect(pty.output(count: enter.utf8.count) == enter)

        #expect(throws: TerminalError(operation: "raw mode", errno: EBUSY)) {
            try RawTerminal.enter(input: pty.terminal, output: pty.terminal)
        }

        terminal.restore()
        #expect(flags(pty.settings) == flags(before))
        let leave = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"
        #expect(pty.output(count: leave.utf8.count) == leave)
        terminal.restore()  // a second restore does nothing
        #expect(flags(pty.settings) == flags(before))
    }

    @Test func droppingTheTerminalRestoresIt() throws {
        let pty = try PseudoTerminal()
        let before = pty.settings
        do {
            let setup = try RawTerminal.enter(input: pty.terminal, output: -1)
            guard case .raw(let terminal) = setup else {
                Issue.record("a pseudo-terminal is a terminal")
                return
            }
            #expect(terminal.output == nil, "not a terminal: the screen is left alone")
            #expect(pty.settings.c_lflag & tcflag_t(ECHO) == 0)
        }
        #expect(flags(pty.settings) == flags(before))
    }

    @Test func anInputThatIsNotATerminalIsReportedAndLeftAlone() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        guard case .notATerminal = try RawTerminal.enter(input: ends[0], output: ends[1]) else {
            Issue.record("a pipe is not a terminal")
            return
        }
    }

    @Test func theSizeIsReadFromTheTerminal() throws {
        let pty = try PseudoTerminal()
        #expect(TerminalSize(of: pty.terminal) == nil, "a new pseudo-terminal reports 0x0")
        try #require(alarmd_terminal_set_size(pty.screen, 24, 80) == 0)
        #expect(TerminalSize(of: pty.terminal) == TerminalSize(rows: 24, columns: 80))
        #expect(TerminalSize(of: -1) == nil)
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        #expect(TerminalSize(of: ends[0]) == nil)
    }
}
