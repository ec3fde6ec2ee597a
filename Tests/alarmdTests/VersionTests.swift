import AlarmClient
import AlarmProtocol
import AlarmTestKit
import FoundationEssentials
import Glibc
import Testing

/// One version everywhere: what `deploy/version` derives from this checkout (its VERSION file,
/// else `git describe`) is what each program's `--version`, the control socket's hello and
/// `status` report (deploy/build-deb.sh puts the same into the package's control file).
@Suite(.timeLimit(.minutes(5))) struct VersionTests {
    /// `deploy/version`'s answer, with this test's environment (no `ALARMD_VERSION`), as the
    /// build that `swift test` just made saw it.
    static func derivedVersion() async throws -> String {
        let result = try await ChildProcess.run("/bin/sh", [AlarmdCommandTests.repository + "/deploy/version"])
        try #require(result.exitStatus == 0, "deploy/version: \(result.standardError)")
        let version = result.standardOutput.split(separator: "\n").first.map(String.init) ?? ""
        // A Debian version, as the package needs: never the "0~unknown" of a checkout without history.
        #expect(version.first?.isNumber == true && version != "0~unknown", "\(version)")
        return version
    }

    @Test(arguments: ["alarmd", "alarmctl", "alarm-web"])
    func eachProgramPrintsTheDerivedVersion(program: String) async throws {
        let version = try await Self.derivedVersion()
        let result = try await ChildProcess.run(ChildProcess.product(program), ["--version"])
        #expect(result.exitStatus == 0, "\(result.standardError)")
        #expect(result.standardOutput == version + "\n")
    }

    @Test func theControlSocketsHelloAndStatusGiveTheDerivedVersion() async throws {
        let version = try await Self.derivedVersion()
        let directory = try TemporaryDirectory()
        let daemon = try DaemonServiceTests.Daemon(directory: directory.path)
        defer { daemon.stop(SIGTERM) }
        try await daemon.waitUntilServing()
        let client = ControlClient(path: daemon.socket)
        defer { client.close() }
        #expect(try await client.hello().version == version)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let report = try decoder.decode(StatusReport.self, from: JSONEncoder().encode(try await client.request("status")))
        #expect(report.version == version)
    }
}
