import AlarmTestKit
import FoundationEssentials
import Glibc
import Testing

/// A second process that imports only AlarmKit, against the real daemon over its socket: the API
/// an app on the device gets, `AlarmManager.shared` with Apple's synchronous members.
@Suite(.timeLimit(.minutes(5))) struct AlarmKitAppTests {
    static let probe = ChildProcess.product("alarmkit-app-probe")

    @Test func anAppSchedulesListsAndCancelsThroughTheSharedManager() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try DaemonServiceTests.Daemon(directory: directory.path)
        defer { daemon.stop(SIGKILL) }
        try await daemon.waitUntilServing()

        let result = try await ChildProcess.run(Self.probe, [], environment: ["ALARMD_SOCKET": daemon.socket])
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        try #require(lines.count == 5, "\(result.standardOutput)\(result.standardError)")
        #expect(lines[0] == "authorization authorized")
        let scheduled = lines[1].split(separator: " ")
        #expect(scheduled.count == 3 && scheduled[0] == "scheduled" && scheduled[2] == "scheduled")
        #expect(lines[2] == "listed \(scheduled.count == 3 ? String(scheduled[1]) : "?")", "the synchronous list has the new alarm")
        #expect(lines[3] == "listed after cancel 0")
        #expect(lines[4].hasPrefix("cancel again: "), "cancelling a gone alarm throws")
        #expect(result.exitStatus == 0)
    }

    @Test func withoutADaemonTheSharedManagerFailsClearly() async throws {
        let directory = try TemporaryDirectory()
        let result = try await ChildProcess.run(Self.probe, [], environment: ["ALARMD_SOCKET": directory.path + "/none.sock"])
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "authorization notDetermined", "unreachable reads as not determined, as the socket backend documents")
        #expect(lines.last?.hasPrefix("failed: ") == true && lines.last?.contains("none.sock") == true, "\(result.standardOutput)")
    }
}
