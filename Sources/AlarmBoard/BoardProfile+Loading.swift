import FoundationEssentials
import Glibc
import TOMLConfig

extension BoardProfile {
    public static let installedDirectory = "/usr/share/alarmd/boards"
    /// Relative to the working directory.
    public static let checkoutDirectory = "board"

    /// The directory named profiles are looked up in: `directory` itself, except that a missing
    /// ``installedDirectory`` (nothing installed: a checkout) means ``checkoutDirectory``.
    public static func lookupDirectory(for directory: String = installedDirectory) -> String {
        directory == installedDirectory && access(directory, F_OK) != 0 ? checkoutDirectory : directory
    }

    /// Loads a profile by name (`rpi4b` reads `DIRECTORY/rpi4b.toml`) or by path (anything
    /// containing `/` or ending in `.toml`, relative to the working directory). The error for an
    /// unknown name lists the available ones.
    public static func load(nameOrPath: String, directory: String) throws(ConfigError) -> Loaded {
        let path: String
        if isPath(nameOrPath) {
            path = nameOrPath
        } else {
            path = directory + (directory.hasSuffix("/") ? "" : "/") + nameOrPath + ".toml"
            let names = available(in: directory)
            guard names.contains(nameOrPath) else {
                let message = names.isEmpty
                    ? "no board profile named \"\(nameOrPath)\", and no profiles in \(directory)"
                    : "no board profile named \"\(nameOrPath)\"; available: \(names.joined(separator: ", "))"
                throw ConfigError(file: path, line: 0, message: message)
            }
        }
        let text = try ConfigFile.readText(path)
        return try parse(text, file: path, defaultName: stem(of: path))
    }

    /// The names of the profiles in `directory` (its `*.toml` files without the extension),
    /// sorted; empty if the directory cannot be read.
    public static func available(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".toml") && !$0.hasPrefix(".") && $0.count > ".toml".count }
            .map { stem(of: $0) }
            .sorted()
    }

    public static func isPath(_ nameOrPath: String) -> Bool {
        nameOrPath.contains("/") || nameOrPath.hasSuffix(".toml")
    }

    /// `board/rpi4b.toml` → `rpi4b`.
    private static func stem(of path: String) -> String {
        let file = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        return file.hasSuffix(".toml") ? String(file.dropLast(".toml".count)) : file
    }
}
