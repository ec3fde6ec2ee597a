import Glibc
import LinuxSupport
import Logging

/// The phone page beside the simulator: `alarm-web` from the same build (or installation),
/// started on the simulator's socket and stopped with it. Its log lines join the simulator's.
final class SimulatorPage: Sendable {
    let pid: pid_t

    /// Starts `alarm-web` listening on `listen`; `nil` (logged) if it is not there or cannot start.
    static func start(listen: String, socket: String, stateDirectory: String, logger: Logger) -> SimulatorPage? {
        guard let executable = sibling("alarm-web") else {
            logger.notice("No phone page: alarm-web is not built (swift build --product alarm-web)")
            return nil
        }
        // The installed page, else the checkout's (`swift run` from the source tree).
        guard let files = ["/usr/share/alarmd/web", "web"].first(where: { access($0 + "/index.html", R_OK) == 0 }) else {
            logger.notice("No phone page: its files are neither in /usr/share/alarmd/web nor in ./web")
            return nil
        }
        mkdir(stateDirectory, 0o700)
        var output: [Int32] = [0, 0]
        guard pipe(&output) == 0 else { return nil }
        let arguments = [
            executable, "--listen", listen, "--socket", socket, "--state-dir", stateDirectory, "--files", files,
        ]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, output[1], 2)
        posix_spawn_file_actions_addclose(&actions, output[0])
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(output[1])
        guard spawned == 0 else {
            close(output[0])
            logger.warning("No phone page: alarm-web did not start", metadata: ["error": "\(String(cString: strerror(spawned)))"])
            return nil
        }
        let reader = output[0]
        let url = "http://\(listen.hasPrefix(":") ? "localhost" + listen : listen)"
        DetachedThread.start { relayLines(from: reader, to: logger, url: url, stateDirectory: stateDirectory) }
        return SimulatorPage(pid: pid)
    }

    private init(pid: pid_t) {
        self.pid = pid
    }

    /// Stops it and waits for it to exit.
    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }

    /// The file `name` in the directory of this executable.
    private static func sibling(_ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let own = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = own.lastIndex(of: "/") else { return nil }
        let path = own[..<slash] + "/" + name
        return access(path, X_OK) == 0 ? path : nil
    }

    /// The start of the line alarm-web logs once it listens (`AlarmWebCommand.run`): the page
    /// can be opened from then on.
    static let servingLine = "Serving the clock's page"

    /// alarm-web's journal lines (`<N>text`) as the simulator's log lines, until it exits. The
    /// page's address is logged once alarm-web listens there, never before; if it exits first
    /// (the address is in use), one line says why and what to do instead of its own error lines.
    private static func relayLines(from descriptor: Int32, to logger: Logger, url: String, stateDirectory: String) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var serving = false
        // Warnings and errors before it listens: one line in the end if it never does.
        var held: [(Logger.Level, String)] = []
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            pending += buffer[..<count]
            while let newline = pending.firstIndex(of: 10) {
                let (level, line) = journalLine(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
                if serving {
                    logger.log(level: level, "web: \(line)")
                } else if line.hasPrefix(servingLine) {
                    serving = true
                    held.forEach { logger.log(level: $0.0, "web: \($0.1)") }
                    logger.notice("Phone page: \(url)", metadata: ["pairings": "alarmctl web pairings --state-dir \(stateDirectory)"])
                } else if level < .warning {
                    logger.log(level: level, "web: \(line)")
                } else {
                    held.append((level, line))
                }
            }
        }
        close(descriptor)
        if !serving {
            let reason = held.last.map { $0.1.hasPrefix("Error: ") ? String($0.1.dropFirst("Error: ".count)) : $0.1 }
            logger.warning("No phone page: \(reason ?? "alarm-web exited"); give the simulator another address with --web HOST:PORT (e.g. --web 127.0.0.1:8081), or --web off")
        }
    }

    /// A journal line's level and text: `<4>text` is a warning; a line without a prefix (the
    /// argument parser's error) is an error.
    static func journalLine(_ line: String) -> (Logger.Level, String) {
        guard line.hasPrefix("<"), let close = line.firstIndex(of: ">"),
              let priority = Int(line[line.index(after: line.startIndex)..<close])
        else { return (.error, line) }
        let level: Logger.Level = priority <= 3 ? .error : priority == 4 ? .warning : priority == 5 ? .notice : .info
        return (level, String(line[line.index(after: close)...]))
    }
}
