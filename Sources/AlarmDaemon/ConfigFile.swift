import AlarmBoard
import Glibc
import TOMLConfig

extension ConfigFile {
    /// The first line of a small text file with trailing NULs and whitespace removed (device-tree
    /// strings end in NUL), or `nil` if it cannot be read.
    static func firstLine(_ path: String) -> String? {
        guard case .text(let text)? = try? read(path) else { return nil }
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        return String(line.unicodeScalars.reversed().drop { $0 == "\0" || $0 == " " || $0 == "\t" || $0 == "\r" }.reversed()
            .reduce(into: "") { $0.unicodeScalars.append($1) })
    }
}
