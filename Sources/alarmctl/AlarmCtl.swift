import ArgumentParser
import Glibc

/// `alarmctl`: the command-line client of alarmd.
@main
struct AlarmCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarmctl",
        abstract: "Control the alarm clock.",
        subcommands: [Preview.self]
    )

    /// Scripts rely on errors being exactly one line on stderr, so errors are printed here rather
    /// than by ArgumentParser, which adds usage lines.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Glibc.exit(0)
            }
            let message = self.message(for: error)
                .split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? "\(error)"
            writeToStandardError("alarmctl: \(message)\n")
            Glibc.exit(code.rawValue == 0 ? 1 : code.rawValue)
        }
    }
}

/// Writes to file descriptor 2 (the C `stderr` global is not usable from Swift 6).
func writeToStandardError(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
        if written <= 0 {
            if written < 0 && errno == EINTR { continue }
            return
        }
        offset += written
    }
}
