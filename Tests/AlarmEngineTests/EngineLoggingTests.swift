import AlarmKitCore
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import FoundationEssentials
import InMemoryLogging
import Logging
import Testing

@testable import AlarmEngine

/// The engine logs like a daemon: a line per event a person would notice, constant messages with
/// the data in metadata, an error naming the file when the store is bad, and nothing when idle.
@Suite(.timeLimit(.minutes(5))) struct EngineLoggingTests {
    let sixFiftyNine = Fixture.at("2026-11-23T06:59:00+01:00")

    static func runtime(in directory: String, clock: ManualWallClock, handler: InMemoryLogHandler) throws -> AlarmRuntime {
        var logger = Logger(label: "alarmd.engine", factory: { _ in handler })
        logger.logLevel = .info
        return try AlarmRuntime(
            configuration: .init(clockTrust: .always, storeDirectory: directory), clock: clock,
            timeZones: ManualTimeZoneProvider(Fixture.berlin), authorizer: FixedAuthorization(.authorized), logger: logger)
    }

    @Test func eventsAreLoggedOnceWithTheirDataInMetadataAndIdleTimeIsSilent() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: sixFiftyNine)
        let handler = InMemoryLogHandler()
        let runtime = try Self.runtime(in: directory.path, clock: clock, handler: handler)
        let id = Alarm.ID()
        var events = runtime.events().makeAsyncIterator()
        let engine = Task { await runtime.run() }
        defer { engine.cancel() }

        _ = try await runtime.schedule(id: id, definition: Fixture.timer(60), client: Fixture.owner)
        await clock.waitForSleeper(until: sixFiftyNine.addingTimeInterval(60))
        clock.advance(by: 60)
        while let event = await events.next(), event != .alertStarted(Fixture.key(id), lateBy: 0) {}
        try await runtime.perform(.stop, id: id, client: Fixture.owner)

        let messages = handler.entries.map { "\($0.message)" }
        #expect(messages == ["Alarm engine started", "Client authorization set", "Alarm scheduled", "Alarm counting down", "Alarm alerting", "Alarm stopped"])
        #expect(handler.entries.allSatisfy { !"\($0.message)".contains(id.uuidString) }, "data belongs in metadata")
        #expect(handler.entries.last?.metadata["alarm.id"] == "\(id)")

        // Idle with one alarm on Friday: the engine's only sleep is until then (it never polls),
        // and a day passing says nothing.
        _ = try await runtime.schedule(id: Alarm.ID(), definition: Fixture.alarm(9, 0, weekly: [.friday]), client: Fixture.owner)
        let friday = Fixture.at("2026-11-27T09:00:00+01:00")
        await clock.waitForSleeper(until: friday)
        handler.clear()
        clock.advance(by: 86_400)
        #expect(clock.sleeperCount == 1)
        #expect(clock.earliestSleeperDeadline == friday)
        #expect(handler.entries.isEmpty)
    }

    /// An alert that was ringing when the process stopped rings again after the restart: the log
    /// says so, with how long after it was due the device rings it now (the first process's line
    /// said 0, and the person heard nothing before the restart).
    @Test func anAlertResumedAfterARestartIsLoggedWithItsTrueLateness() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: sixFiftyNine)
        let first = try Self.runtime(in: directory.path, clock: clock, handler: InMemoryLogHandler())
        let id = Alarm.ID()
        _ = try await first.schedule(id: id, definition: Fixture.fixed(sixFiftyNine.addingTimeInterval(60)), client: Fixture.owner)
        clock.advance(by: 60)
        await first.catchUpWithClock()
        await first.settleStore()

        // Killed as it began to ring; back 65 s later.
        clock.advance(by: 65)
        let handler = InMemoryLogHandler()
        let restarted = try Self.runtime(in: directory.path, clock: clock, handler: handler)
        #expect(await restarted.alarms(for: Fixture.owner).map(\.state) == [.alerting])
        let alerting = handler.entries.filter { "\($0.message)" == "Alarm alerting" }
        #expect(alerting.count == 1)
        #expect(alerting.first?.metadata["alarm.id"] == "\(id)")
        #expect(alerting.first?.metadata["alarm.lateBy"] == "65")
    }

    @Test func aBadStoreFileIsAnErrorNamingTheFileAndWhereItWasKept() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: sixFiftyNine)
        _ = try Self.runtime(in: directory.path, clock: clock, handler: InMemoryLogHandler())
        try TestFiles.write(Array("alarmd-store 1 0 3\nxyz".utf8), to: directory.path + "/alarms.store")

        let handler = InMemoryLogHandler()
        _ = try Self.runtime(in: directory.path, clock: clock, handler: handler)
        let errors = handler.entries.filter { $0.level == .error }
        #expect(errors.count == 1)
        #expect(errors.first?.metadata["store.path"] == "\(directory.path)/alarms.store")
        let reason = errors.first?.metadata["store.reason"].map { "\($0)" } ?? ""
        let keptAs = errors.first?.metadata["store.keptAs"].map { "\($0)" } ?? ""
        #expect(reason.contains("checksum"))
        #expect(keptAs.contains("alarms.store.bad-corrupt-"))
    }
}
