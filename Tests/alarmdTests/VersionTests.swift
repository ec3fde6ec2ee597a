import AlarmClient
import AlarmProtocol
import AlarmTestKit
import BuildVersion
import FoundationEssentials
import Glibc
import Testing

/// One version everywhere: what `deploy/version` derives from this checkout (its VERSION file,
/// else `git describe`) is what the build compiles in (``AlarmdVersion/current``, through
/// Plugins/VersionPlugin), and what each program's `--version`, the control socket's hello and
/// `status` report (deploy/build-deb.sh puts the same into the package's control file).
@Suite(.timeLimit(.minutes(5))) struct VersionTests {
    /// The version this build compiled in: the programs were built by the same build, with the
    /// same prebuild output.
    static let built = AlarmdVersion.current

    static func git(_ arguments: [String]) async throws -> ChildProcess.Result {
        try await ChildProcess.run("/usr/bin/git", ["-C", AlarmdCommandTests.repository] + arguments)
    }

    /// The build's version is deploy/version's for this checkout; or, when a commit was made
    /// since the build (`swift test --skip-build`), the one it gave for a commit before HEAD.
    @Test func theBuildCompiledDeployVersionsVersion() async throws {
        let result = try await ChildProcess.run("/bin/sh", [AlarmdCommandTests.repository + "/deploy/version"])
        try #require(result.exitStatus == 0, "deploy/version: \(result.standardError)")
        let derived = result.standardOutput.split(separator: "\n").first.map(String.init) ?? ""
        // A Debian version, as the package needs: never the "0~unknown" of a checkout without history.
        #expect(Self.built.first?.isNumber == true && Self.built != "0~unknown", "\(Self.built)")
        guard derived != Self.built else { return }
        // 0~gitYYYYMMDD.HASH or 1.2.3+N.gHASH: HASH names a commit HEAD descends from.
        let hash = String(Self.built.split(separator: ".").last ?? "").replacing(/^g/, with: "")
        let ancestor = try await Self.git(["merge-base", "--is-ancestor", hash, "HEAD"])
        #expect(ancestor.exitStatus == 0, "built \(Self.built), deploy/version says \(derived)")
    }

    /// deploy/version in a repository of its own: what a tag, a commit after it and a VERSION
    /// file give, and that each sorts as the packages need (a later commit above its tag).
    @Test func theVersionFollowsTagsCommitsAndAVersionFile() async throws {
        let directory = try TemporaryDirectory()
        let repository = directory.path
        let script = TestFiles.read(AlarmdCommandTests.repository + "/deploy/version") ?? []
        _ = mkdir(repository + "/deploy", 0o755)
        try TestFiles.write(script, to: repository + "/deploy/version")
        // Commits dated at noon UTC, so the snapshot version's date is known in any time zone.
        let dates = ["GIT_AUTHOR_DATE": "2026-11-28T12:00:00Z", "GIT_COMMITTER_DATE": "2026-11-28T12:00:00Z"]
        func run(_ arguments: [String]) async throws -> String {
            let result = try await ChildProcess.run(arguments[0], Array(arguments.dropFirst()), environment: dates)
            try #require(result.exitStatus == 0, "\(arguments): \(result.standardError)")
            return result.standardOutput.split(separator: "\n").first.map(String.init) ?? ""
        }
        let git = ["/usr/bin/git", "-C", repository, "-c", "user.name=test", "-c", "user.email=test@test.invalid"]
        let version = ["/bin/sh", repository + "/deploy/version"]
        _ = try await run(git + ["init", "--quiet"])
        _ = try await run(git + ["add", "deploy/version"])
        _ = try await run(git + ["commit", "--quiet", "-m", "first"])
        let first = try await run(git + ["rev-parse", "--short", "HEAD"])
        #expect(try await run(version) == "0~git20261128.\(first)")

        _ = try await run(git + ["tag", "v1.2.3"])
        #expect(try await run(version) == "1.2.3")
        _ = try await run(git + ["commit", "--quiet", "--allow-empty", "-m", "second"])
        let second = try await run(git + ["rev-parse", "--short", "HEAD"])
        #expect(try await run(version) == "1.2.3+1.g\(second)")
        for (lower, higher) in [("1.2.3~deb13", "1.2.3+1.g\(second)~deb12"), ("1.2.3~deb12", "1.2.3~deb13")] {
            let compared = try await ChildProcess.run("/usr/bin/dpkg", ["--compare-versions", lower, "lt", higher])
            #expect(compared.exitStatus == 0, "\(lower) < \(higher)")
        }

        try TestFiles.write(Array("2.0.0\n".utf8), to: repository + "/VERSION")
        #expect(try await run(version) == "2.0.0")
        // The plugin's source file, with ALARMD_VERSION (deploy/build-deb.sh's) winning.
        let generated = repository + "/PackageVersion.swift"
        let written = try await ChildProcess.run(
            "/bin/sh", [repository + "/deploy/version", "--swift", generated], environment: ["ALARMD_VERSION": "2.0.0~deb13"])
        #expect(written.exitStatus == 0, "\(written.standardError)")
        let source = String(decoding: TestFiles.read(generated) ?? [], as: UTF8.self)
        #expect(source.contains("let packageVersion = \"2.0.0~deb13\"\n"), "\(source)")
    }

    @Test(arguments: ["alarmd", "alarmctl", "alarm-web"])
    func eachProgramPrintsTheBuiltVersion(program: String) async throws {
        let result = try await ChildProcess.run(ChildProcess.product(program), ["--version"])
        #expect(result.exitStatus == 0, "\(result.standardError)")
        #expect(result.standardOutput == Self.built + "\n")
    }

    @Test func theControlSocketsHelloAndStatusGiveTheBuiltVersion() async throws {
        let version = Self.built
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
