import AlarmBoard
import Logging
import TOMLConfig

extension DaemonConfiguration {
    /// Reads `--config`'s file, or ``defaultPath`` when `path` is `nil`. A missing default file
    /// gives the built-in defaults with ``Loaded/file`` `nil`; a missing file given explicitly is
    /// an error.
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
        public var stateDirectory: String?
        public var socketPath: String?
        public var logLevel: Logger.Level?

        public init(board: String? = nil, stateDirectory: String? = nil, socketPath: String? = nil, logLevel: Logger.Level? = nil) {
            self.board = board
            self.stateDirectory = stateDirectory
            self.socketPath = socketPath
            self.logLevel = logLevel
        }
    }

    /// Applies the command line's values, checked as the file's are; an error names the option
    /// (`command line: --socket: ...`).
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
}
