import AlarmClient
import AlarmProtocol
import AlarmTestKit
import Glibc
import Testing

/// A question waiting on the display (a phone asking to pair) does not hold alarmd's shutdown:
/// systemd allows it 10 s (TimeoutStopSec) and the question would wait a minute.
@Suite(.timeLimit(.minutes(5))) struct ShutdownWithQuestionTests {
    @Test func sigtermAnswersAWaitingPairingQuestionAndExitsAtOnce() async throws {
        let daemon = try RunningDaemon()
        let client = ControlClient(connector: .unixSocket(path: daemon.socket))
        defer { client.close() }
        _ = try await client.hello()
        let asking = Task {
            try await client.request("requestPairing", parameters: ["name": .string("phone"), "code": .string("1234")])
        }
        // The question is on the display once the daemon logs it.
        _ = try await TestFiles.waitUntil(daemon.standardErrorPath, contains: "Asking on the device")
        let started = ContinuousClock.now
        let ended = daemon.stop()
        #expect(ended.exitStatus == 0)
        #expect(ContinuousClock.now - started < .seconds(20), "alarmd waited for the unanswered question")
        let answer = try? await asking.value
        #expect(answer == nil || answer == .object(["answer": .string("unanswered")]))
    }
}
