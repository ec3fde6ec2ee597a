import AlarmBoard
import AlarmScenario
import FoundationEssentials
import Glibc
import LinuxSupport
import Logging
import TOMLConfig

/// `alarmd --simulate --script FILE`: a scenario in virtual time, one line per step on stdout,
/// then `N passed, N failed`. Exit status: 0 if every step passed, 1 if any failed, 65 for a
/// file that is not a valid scenario (nothing runs then), 66 for a file that cannot be read.
struct ScriptMode {
    let path: String
    let logLevel: Logger.Level

    func run() async -> Int32 {
        let text: String
        do {
            text = try ConfigFile.readText(path)
        } catch {
            writeToStandardError("alarmd: \(error)\n")
            return 66
        }
        let script: ScenarioScript
        do {
            script = try ScenarioScript.parse(text, file: path)
        } catch {
            writeToStandardError("alarmd: \(error)\n")
            return 65
        }
        let store: ScratchDirectory
        do {
            store = try ScratchDirectory(prefix: "alarmd-scenario")
        } catch {
            writeToStandardError("alarmd: cannot create a scratch directory for the scenario's store: \(error)\n")
            return 73
        }
        defer { store.remove() }
        var logger = Logger(label: "alarmd")
        logger.logLevel = logLevel
        let report = await ScenarioRunner.run(script, storeDirectory: store.path, logger: logger) { line in
            writeAll(line + "\n", to: 1)
        }
        writeAll(report.summary + "\n", to: 1)
        return report.succeeded ? 0 : 1
    }
}

/// Why the scratch directory could not be made: the system's reason.
struct ScratchDirectoryError: Error, CustomStringConvertible {
    let description: String
}

/// A private directory under `$TMPDIR` (or /tmp), removed with everything in it by ``remove()``.
final class ScratchDirectory: Sendable {
    let path: String

    init(prefix: String) throws {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var name = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
        let created = name.withUnsafeMutableBufferPointer { buffer -> String? in
            // mkdtemp fills in the name in place and returns a pointer into it, which is only
            // valid while this closure runs: the path is read from the buffer, here.
            guard mkdtemp(buffer.baseAddress!) != nil else { return nil }
            return String(cString: buffer.baseAddress!)
        }
        guard let created else {
            throw ScratchDirectoryError(description: String(cString: strerror(errno)))
        }
        path = created
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
