import AlarmTestKit

/// Files of the repository, found from this source file's path.
enum RepositoryFiles {
    static let root: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/AlarmDaemonTests/RepositoryFiles.swift
        return parts.joined(separator: "/")
    }()

    static let boardDirectory = root + "/board"
    static let shippedConfiguration = root + "/deploy/alarmd.toml"

    /// A file's text.
    static func text(_ path: String) throws -> String {
        guard let bytes = TestFiles.read(path) else { throw UnreadableFile(path: path) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

struct UnreadableFile: Error, CustomStringConvertible {
    let path: String
    var description: String { "cannot read \(path)" }
}
