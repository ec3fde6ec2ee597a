import AlarmKitCore
import AlarmModel
import FoundationEssentials
import Glibc
import Testing

@testable import AlarmClient
@testable import AlarmControl
@testable import AlarmEngine
@testable import AlarmProtocol

/// Answers are written as the socket drains, outside the bound on unread output: a list of any
/// size reaches a client that reads it, lines sent meanwhile follow it whole, and a client that
/// asks and does not read is let go after the idle timeout.
@Suite(.timeLimit(.minutes(5)))
struct ControlAnswersTests {
    static let me = ClientID(rawValue: geteuid())

    static func schedule(_ count: Int, _ definition: AlarmDefinition, _ rig: ServerRig) async throws {
        for _ in 0..<count {
            _ = try await rig.runtime.schedule(id: Alarm.ID(), definition: definition, client: me)
        }
    }

    @Test func answersLargerThanTheOutputBoundReachAClientThatReadsThem() async throws {
        let rig = try ServerRig(configure: { $0.outputLimit = 4 * 1024 })
        try await rig.serving {
            try await Self.schedule(40, Sample.definition(), rig)
            try await Self.schedule(10, Sample.bulky(), rig)
            let client = rig.client()
            defer { client.close() }
            // About 12 KB of alarms and 220 KB of records, against 4 KiB of unread output.
            #expect(try await client.alarms().count == 50)
            #expect(try await client.allAlarms().count == 50)
            let records = try await client.alarmRecords()
            #expect(records.count == 50)
            #expect(records.filter { $0.definition == Sample.bulky() }.count == 10)
            // The connection is still up: the answers did not count as unread events.
            #expect(try await client.hello().protocol == ControlProtocol.version)
            #expect(!rig.log.entries.contains { $0.message == "Control connection closed" })
        }
    }

    @Test func linesSentDuringALongAnswerFollowItsLineWhole() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            try await Self.schedule(60, Sample.bulky(), rig)
            let connection = try await rig.rawConnection()
            await connection.send(Sample.request(1, "subscribeAlarms"))
            #expect(await connection.nextMessage()?["id"] == .integer(1))
            #expect(await connection.nextMessage()?["event"] == .string("alarms"))
            await connection.send(Sample.request(2, "alarmRecords"))
            // The answer (1.3 MB) has begun; the daemon holds at most its window and the socket's
            // buffer of it, so it is still being written when the list changes. (The lines read
            // above came in bytes already counted: wait for bytes of the answer itself.)
            #expect(await connection.receive(more: 1))
            _ = try await rig.runtime.schedule(id: Alarm.ID(), definition: Sample.definition(), client: Self.me)
            let answer = await connection.nextMessage()
            #expect(answer?["id"] == .integer(2))
            guard case .array(let records)? = answer?["result"] else {
                Issue.record("no records: \(String(describing: answer?["error"]))")
                return
            }
            #expect(records.count == 60)
            let event = await connection.nextMessage()
            #expect(event?["event"] == .string("alarms"))
            guard case .array(let alarms)? = event?["data"] else {
                Issue.record("no event after the answer")
                return
            }
            #expect(alarms.count == 61)
        }
    }

    @Test func aClientThatAsksAndDoesNotReadIsLetGoAfterTheIdleTimeout() async throws {
        let rig = try ServerRig(configure: { $0.idleTimeout = .seconds(10) })
        try await rig.serving {
            try await Self.schedule(60, Sample.bulky(), rig)
            let lazy = try await rig.rawConnection()
            await lazy.send(Sample.request(1, "alarmRecords"))
            // The answer has begun, and the connection is kept while it waits to be read.
            #expect(await lazy.receive(atLeast: 1))
            // Everyone else is served meanwhile.
            let client = rig.client()
            defer { client.close() }
            #expect(try await client.alarms().count == 60)
            // Each round moves the server's clock past the timeout; the daemon stops writing once
            // the socket is full, and from then the connection's output waits unread.
            func isLetGo() -> Bool {
                rig.log.entries.contains { $0.message == "Control connection closed" && $0.metadata["control.reason"] == "client does not read" }
            }
            var rounds = 0
            while !isLetGo(), rounds < 100 {
                rig.advanceServerClock(by: 10)
                try await ControlLimitsTests.roundTrip(rig)
                rounds += 1
            }
            #expect(isLetGo())
            #expect(await lazy.drainUntilClosed())
            #expect(try await client.alarms().count == 60)
        }
    }
}
