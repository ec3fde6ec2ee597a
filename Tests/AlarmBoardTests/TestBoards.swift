import AlarmBoard
import AlarmTestKit
import TOMLConfig

/// The repository's `board/` directory and its files, found from this source file's path.
enum TestBoards {
    static let directory: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/AlarmBoardTests/TestBoards.swift
        return parts.joined(separator: "/") + "/board"
    }()

    /// The text of `board/NAME.toml`.
    static func text(_ name: String) throws -> String {
        guard let bytes = TestFiles.read(directory + "/" + name + ".toml") else {
            throw MissingBoardFile(name: name)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses `text` as a profile named `t` in the file `t.toml`.
    static func parse(_ text: String) throws(ConfigError) -> BoardProfile.Loaded {
        try BoardProfile.parse(text, file: "t.toml", defaultName: "t")
    }

    /// A complete real-board profile to start edits from: every line is known, so a test can
    /// replace a line and predict the line number of the error.
    static let minimal = """
        name = "t"
        [gpio]
        chip = "pinctrl-bcm2711"
        stop = "GPIO17"
        snooze = "GPIO27"
        led = "GPIO22"
        [display]
        bus = 1
        """
}

struct MissingBoardFile: Error, CustomStringConvertible {
    let name: String
    var description: String { "cannot read board/\(name).toml" }
}
