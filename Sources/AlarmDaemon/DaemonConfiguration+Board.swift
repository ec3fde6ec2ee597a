import AlarmBoard
import Glibc
import TOMLConfig

extension DaemonConfiguration {
    /// Where Linux publishes the device tree's model string (`Raspberry Pi 4 Model B Rev 1.4`):
    /// the target of `/proc/device-tree/model`, read directly so that a unit with
    /// `ProcSubset=pid` still finds it.
    public static let deviceTreeModelPath = "/sys/firmware/devicetree/base/model"

    /// The model strings `board = "auto"` recognises, each with the profile it loads. This names
    /// boards, not pins: the wiring stays in the profiles. A model matches its entry exactly or
    /// followed by ` Rev ...` (so `Raspberry Pi 500` is not a `Raspberry Pi 5`).
    public static let knownModels: [(model: String, board: String)] = [
        ("Raspberry Pi 3 Model B Plus", "rpi3bplus"),
        ("Raspberry Pi 4 Model B", "rpi4b"),
        ("Raspberry Pi 5 Model B", "rpi5"),
        ("Raspberry Pi Zero 2 W", "zero2w"),
    ]

    public static func boardName(forModel model: String) -> String? {
        knownModels.first { model == $0.model || model.hasPrefix($0.model + " Rev ") }?.board
    }

    /// The profile ``board`` selects, as a name or path for `BoardProfile.load`.
    /// - Throws: ``ConfigError`` at the line (or option) that chose the board.
    public func boardNameOrPath(modelFile: String = deviceTreeModelPath) throws(ConfigError) -> String {
        switch board {
        case .automatic:
            guard let model = ConfigFile.firstLine(modelFile), !model.isEmpty else {
                throw boardOrigin.error(
                    "\"auto\" cannot tell the board: \(modelFile) cannot be read (not a device-tree board?); name a profile instead (\(availableBoards))")
            }
            guard let name = Self.boardName(forModel: model) else {
                throw boardOrigin.error("\"auto\" does not know the model \"\(model)\" (\(modelFile)); name a profile instead (\(availableBoards))")
            }
            try checkNamedBoard(name)
            return name
        case .named(let name):
            try checkNamedBoard(name)
            return name
        case .path(let path):
            if access(path, F_OK) != 0 {
                throw boardOrigin.error("cannot open \(path): \(ConfigFile.reason(errno))")
            }
            return path
        }
    }

    /// Loads the board profile ``board`` selects. Touches no hardware. A problem in the profile
    /// is reported at its own file and line.
    public func loadBoard(modelFile: String = deviceTreeModelPath) throws(ConfigError) -> BoardProfile.Loaded {
        try BoardProfile.load(nameOrPath: boardNameOrPath(modelFile: modelFile), directory: boardLookupDirectory)
    }

    /// Where profile names are looked up: ``boardsDirectory``, or `./board` in a checkout where
    /// the default directory is not installed (`BoardProfile.lookupDirectory(for:)`).
    public var boardLookupDirectory: String {
        BoardProfile.lookupDirectory(for: boardsDirectory)
    }

    private var availableBoards: String {
        let directory = boardLookupDirectory
        let names = BoardProfile.available(in: directory)
        return names.isEmpty ? "no profiles in \(directory)" : "available: " + names.joined(separator: ", ")
    }

    private func checkNamedBoard(_ name: String) throws(ConfigError) {
        guard BoardProfile.available(in: boardLookupDirectory).contains(name) else {
            throw boardOrigin.error("no board profile named \"\(name)\" in \(boardLookupDirectory) (\(availableBoards))")
        }
    }
}
