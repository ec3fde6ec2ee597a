import AlarmBoard
import AlarmDaemon
import AlarmTestKit
import TOMLConfig
import Testing

@Suite struct DaemonConfigurationBoardTests {
    func configuration(_ text: String) throws -> DaemonConfiguration {
        var configuration = try DaemonConfiguration.parse(text, file: "c.toml").configuration
        configuration.boardsDirectory = RepositoryFiles.boardDirectory
        return configuration
    }

    @Test(arguments: [
        ("Raspberry Pi 4 Model B Rev 1.4", "rpi4b"), ("Raspberry Pi 3 Model B Plus Rev 1.3", "rpi3bplus"),
        ("Raspberry Pi 5 Model B Rev 1.0", "rpi5"), ("Raspberry Pi Zero 2 W Rev 1.0", "zero2w"), ("Raspberry Pi 4 Model B", "rpi4b"),
    ])
    func autoRecognisesTheSupportedPis(model: String, board: String) throws {
        let directory = try TemporaryDirectory()
        let modelFile = directory.path + "/model"
        try TestFiles.write(Array(model.utf8) + [0], to: modelFile)  // device-tree strings end in NUL
        let loaded = try configuration("").loadBoard(modelFile: modelFile)
        #expect(loaded.profile.name == board && loaded.warnings == [])
    }

    @Test(arguments: ["Raspberry Pi 500 Rev 1.0", "Raspberry Pi 4 Model B Plus", "Raspberry Pi 400 Rev 1.0", ""])
    func autoRefusesOtherModels(model: String) {
        #expect(DaemonConfiguration.boardName(forModel: model) == nil)
    }

    @Test func autoOnAnUnknownModelNamesTheConfigLine() throws {
        let directory = try TemporaryDirectory()
        let modelFile = directory.path + "/model"
        try TestFiles.write(Array("Banana Pi M5\0".utf8), to: modelFile)
        let configuration = try configuration("log_level = \"info\"\nboard = \"auto\"\n")
        let available = BoardProfile.available(in: RepositoryFiles.boardDirectory).joined(separator: ", ")
        #expect(throws: ConfigError(file: "c.toml", line: 2, key: "board", message: "\"auto\" does not know the model \"Banana Pi M5\" (\(modelFile)); name a profile instead (available: \(available))")) {
            try configuration.loadBoard(modelFile: modelFile)
        }
        #expect(throws: ConfigError(file: "c.toml", line: 2, key: "board", message: "\"auto\" cannot tell the board: \(directory.path)/none cannot be read (not a device-tree board?); name a profile instead (available: \(available))")) {
            try configuration.loadBoard(modelFile: directory.path + "/none")
        }
    }

    @Test func aNamedBoardLoadsFromTheBoardsDirectory() throws {
        let loaded = try configuration("board = \"rpi4b\"").loadBoard()
        #expect(loaded.profile.name == "rpi4b" && loaded.file == RepositoryFiles.boardDirectory + "/rpi4b.toml")
        let available = BoardProfile.available(in: RepositoryFiles.boardDirectory).joined(separator: ", ")
        #expect(throws: ConfigError(file: "c.toml", line: 1, key: "board", message: "no board profile named \"rpi9\" in \(RepositoryFiles.boardDirectory) (available: \(available))")) {
            try configuration("board = \"rpi9\"").loadBoard()
        }
        var fromCommandLine = try configuration("board = \"rpi4b\"")
        try fromCommandLine.apply(.init(board: "rpi9"))
        #expect(throws: ConfigError(file: "command line", line: 0, key: "--board", message: "no board profile named \"rpi9\" in \(RepositoryFiles.boardDirectory) (available: \(available))")) {
            try fromCommandLine.loadBoard()
        }
    }

    @Test func aBoardPathIsLoadedAndItsErrorsNameTheProfileFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/mine.toml"
        #expect(throws: ConfigError(file: "c.toml", line: 1, key: "board", message: "cannot open \(path): No such file or directory")) {
            try configuration("board = \"\(path)\"").loadBoard()
        }
        try TestFiles.write(Array("simulated = true\n".utf8), to: path)
        #expect(try configuration("board = \"\(path)\"").loadBoard().profile.simulated)
        try TestFiles.write(Array("simulated = 1\n".utf8), to: path)
        #expect(throws: ConfigError(file: path, line: 1, key: "simulated", message: "expected true or false, found integer 1")) {
            try configuration("board = \"\(path)\"").loadBoard()
        }
    }
}
