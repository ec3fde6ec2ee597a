import AlarmScenario
import AlarmTestKit
import Logging
import Testing

/// Runs every scenario in `Tests/Scenarios/`: the repository's whole-morning stories, in the
/// same runner as `alarmd --simulate --script FILE`.
@Suite struct ScenarioFileTests {
    static let directory: String = {
        // Tests/AlarmScenarioTests/ScenarioFileTests.swift → Tests/Scenarios
        let tests = #filePath.split(separator: "/").dropLast(2).joined(separator: "/")
        return "/" + tests + "/Scenarios"
    }()

    static var files: [String] {
        TestFiles.names(in: directory).filter { $0.hasSuffix(".scenario") }.sorted()
    }

    @Test func theRepositoryHasScenarios() {
        #expect(Self.files.count >= 6, "scenarios in \(Self.directory)")
    }

    @Test(arguments: files)
    func scenarioPasses(_ name: String) async throws {
        let bytes = try #require(TestFiles.read(Self.directory + "/" + name))
        let text = String(decoding: bytes, as: UTF8.self)
        let script = try ScenarioScript.parse(text, file: name)
        let store = try TemporaryDirectory()
        var lines: [String] = []
        let report = await ScenarioRunner.run(
            script, storeDirectory: store.path, logger: Logger(label: "scenario", factory: { _ in SwiftLogNoOpLogHandler() })
        ) { lines.append($0) }
        #expect(report.failed == 0, "\(name): \(report.summary)\n\(lines.joined(separator: "\n"))")
        #expect(report.passed == script.steps.count)
    }
}
