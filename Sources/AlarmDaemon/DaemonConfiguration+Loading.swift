import AlarmBoard
import Logging
import TOMLConfig

extension DaemonConfiguration {
    /// Reads the configuration file.
    ///
    /// - Parameter path: `--config`'s value; `nil` reads ``defaultPath``.
    /// - Returns: the configuration; when `path` is `nil` and ``defaultPath`` does not exist, the
    ///   built-in defaults with ``Loaded/file`` `nil` (a packaged device always has the file, so
    ///   log a notice).
    /// - Throws: ``ConfigError``: a file given explicitly that does not exist, a file that cannot
    ///   be read, or the first problem in it (see ``parse(_:file:)``).
    public static func load(path: String?) throws(ConfigError) -> Loaded {
        let file = path ?? defaultPath
        switch try ConfigFile.read(file) {
        case .text(let text):
            return try parse(text, file: file)
        case .missing where path == nil:
            return Loaded(configuration: DaemonConfiguration(), file: nil, warnings: [])
        case .missing:
            throw ConfigError(file: file, line: 0, message: "cannot open: no such file (--config names a file that must exist)")
        }
    }

    /// Values from the command line. Each one that is not `nil` replaces the file's.
    public struct Overrides: Hashable, Sendable {
        /// `--board NAME|PATH` (`auto` is allowed too).
        public var board: String?
        /// `--state-dir PATH`.
        public var stateDirectory: String?
        /// `--socket PATH`.
        public var socketPath: String?
        /// `--log-level LEVEL`.
        public var logLevel: Logger.Level?

        public init(board: String? = nil, stateDirectory: String? = nil, socketPath: String? = nil, logLevel: Logger.Level? = nil) {
            self.board = board
            self.stateDirectory = stateDirectory
            self.socketPath = socketPath
            self.logLevel = logLevel
        }
    }

    /// Applies the command line's values, checked as the file's are.
    /// - Throws: ``ConfigError`` naming the option: `command line: --socket: ...`.
    public mutating func apply(_ overrides: Overrides) throws(ConfigError) {
        if let board = overrides.board {
            guard !board.isEmpty else { throw ConfigOrigin.commandLine(option: "--board").error("must not be empty") }
            self.board = BoardSelection(board)
            boardOrigin = .commandLine(option: "--board")
        }
        if let path = overrides.stateDirectory {
            if let problem = Self.checkAbsolutePath(path) { throw ConfigOrigin.commandLine(option: "--state-dir").error(problem) }
            stateDirectory = path
        }
        if let path = overrides.socketPath {
            if let problem = Self.checkSocketPath(path) { throw ConfigOrigin.commandLine(option: "--socket").error(problem) }
            socketPath = path
        }
        if let level = overrides.logLevel {
            logLevel = level
        }
    }

    /// This configuration with `overrides` applied; see ``apply(_:)``.
    public func merged(with overrides: Overrides) throws(ConfigError) -> DaemonConfiguration {
        var merged = self
        try merged.apply(overrides)
        return merged
    }
}
