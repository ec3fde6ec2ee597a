import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import FoundationEssentials
import Glibc
import Logging
import Testing

@testable import AlarmEngine

/// The intents of presses at the device on their way to their clients: kept until acknowledged,
/// across a restart, bounded in number and age, and never shown to another client.
@Suite(.timeLimit(.minutes(5))) struct IntentMailboxTests {
    static let owner = ClientID(rawValue: 1000)
    static let stranger = ClientID(rawValue: 1001)
    static let monday = Fixture.at("2026-11-23T07:00:00+01:00")

    @Test func aWaitingIntentComesFirstToEachNewSubscriptionThenNewOnesAndOnlyToItsOwner() async throws {
        let rig = try EngineRig(now: Self.monday)
        let alarm = Alarm.ID()
        rig.runtime.intents.post(AlarmIntent("coffee"), button: .stop, alarm: alarm, owner: Self.owner)
        var theirs = rig.runtime.intents.deliveries(for: Self.owner).makeAsyncIterator()
        let strangers = rig.runtime.intents.deliveries(for: Self.stranger)
        let first = try #require(await theirs.nextElement())
        #expect(first.intent == AlarmIntent("coffee") && first.alarmID == alarm && first.button == .stop)
        #expect(first.date == Self.monday)

        rig.runtime.intents.post(AlarmIntent("open", parameters: ["tab": "alarms"]), button: .secondary, alarm: alarm, owner: Self.owner)
        #expect(await theirs.nextElement()?.intent.parameters == ["tab": "alarms"])
        // A second subscription (another connection of the same user) gets both: none acknowledged.
        #expect(await rig.runtime.intents.deliveries(for: Self.owner).prefix(2).map(\.intent.name).collected() == ["coffee", "open"])

        rig.runtime.intents.finishAll()
        #expect(await strangers.collected().isEmpty, "a stranger never sees another client's intents")
    }

    @Test func anAcknowledgedIntentIsGoneAndAWaitingOneOutlivesARestart() async throws {
        let rig = try EngineRig(now: Self.monday)
        rig.runtime.intents.post(AlarmIntent("coffee"), button: .stop, alarm: Alarm.ID(), owner: Self.owner)
        rig.runtime.intents.post(AlarmIntent("lights"), button: .stop, alarm: Alarm.ID(), owner: Self.owner)
        let coffee = try #require(rig.runtime.intents.waiting(for: Self.owner).first)
        rig.runtime.intents.acknowledge(coffee.id, for: Self.stranger)
        #expect(rig.runtime.intents.waiting(for: Self.owner).count == 2, "only the owner acknowledges its own")
        rig.runtime.intents.acknowledge(coffee.id, for: Self.owner)
        rig.runtime.intents.acknowledge(coffee.id, for: Self.owner)

        let restarted = try rig.restarted()
        #expect(restarted.intents.waiting(for: Self.owner).map(\.intent.name) == ["lights"])
        let lights = try #require(restarted.intents.waiting(for: Self.owner).first)
        restarted.intents.acknowledge(lights.id, for: Self.owner)
        #expect(!TestFiles.names(in: rig.directory.path).contains("intents.json"), "an empty mailbox is no file")
        #expect(try rig.restarted().intents.waiting(for: Self.owner).isEmpty)
    }

    @Test func aClientThatNeverConnectsKeepsOnlyItsNewestIntentsForADay() async throws {
        let rig = try EngineRig(now: Self.monday)
        let mailbox = rig.runtime.intents
        for index in 0..<(IntentMailbox.capacityPerClient + 3) {
            mailbox.post(AlarmIntent("press-\(index)"), button: .stop, alarm: Alarm.ID(), owner: Self.owner)
        }
        let names = mailbox.waiting(for: Self.owner).map(\.intent.name)
        #expect(names.count == IntentMailbox.capacityPerClient)
        #expect(names.first == "press-3" && names.last == "press-\(IntentMailbox.capacityPerClient + 2)")

        rig.clock.advance(by: 12 * 3600)
        mailbox.post(AlarmIntent("noon"), button: .stop, alarm: Alarm.ID(), owner: Self.owner)
        rig.clock.advance(by: 12 * 3600 + 1)
        #expect(await mailbox.deliveries(for: Self.owner).prefix(1).map(\.intent.name).collected() == ["noon"])
        #expect(try rig.restarted().intents.waiting(for: Self.owner).map(\.intent.name) == ["noon"])
    }

    @Test func aDamagedMailboxIsSetAsideAndTheEngineStarts() async throws {
        let rig = try EngineRig(now: Self.monday)
        try TestFiles.write(Array("{\"version\":1,\"deliveries\":[{".utf8), to: rig.directory.path + "/intents.json")
        let restarted = try rig.restarted()
        #expect(restarted.intents.waiting(for: Self.owner).isEmpty)
        #expect(TestFiles.names(in: rig.directory.path).contains { $0.hasPrefix("intents.json.bad-") })
        restarted.intents.post(AlarmIntent("coffee"), button: .stop, alarm: Alarm.ID(), owner: Self.owner)
        #expect(try rig.restarted().intents.waiting(for: Self.owner).count == 1)
    }
}

extension IntentMailboxTests {
    /// A mailbox that fails to read at start (EIO) is left as it is while presses go on: their
    /// intents reach the clients that listen, and once the file reads, what it held waits beside
    /// them and the whole is written.
    @Test func aMailboxThatCannotBeReadIsNeverOverwrittenAndIsReadOnceItCanBe() async throws {
        let rig = try EngineRig(now: Self.monday)
        rig.runtime.intents.post(AlarmIntent("coffee"), button: .stop, alarm: Alarm.ID(), owner: Self.owner)
        let path = rig.directory.path + "/intents.json"
        let before = try #require(TestFiles.read(path))

        let files = FaultyFileSystem()
        files.fail(.read, on: "intents.json", with: EIO)
        let mailbox = IntentMailbox(directory: rig.directory.path, clock: rig.clock, logger: EngineRig.logger, files: DurableFile(calls: files))
        #expect(mailbox.waiting(for: Self.owner).isEmpty)
        var deliveries = mailbox.deliveries(for: Self.owner).makeAsyncIterator()
        mailbox.post(AlarmIntent("lights"), button: .stop, alarm: Alarm.ID(), owner: Self.owner)
        #expect(await deliveries.nextElement()?.intent.name == "lights", "delivered all the same")
        #expect(TestFiles.read(path) == before, "left as it was")

        files.heal()
        mailbox.post(AlarmIntent("radio"), button: .stop, alarm: Alarm.ID(), owner: Self.owner)
        #expect(mailbox.waiting(for: Self.owner).map(\.intent.name) == ["coffee", "lights", "radio"])
        #expect(try rig.restarted().intents.waiting(for: Self.owner).map(\.intent.name) == ["coffee", "lights", "radio"])
    }
}

/// One delivery per app: the app that scheduled the alarm gets it, and of its processes exactly
/// one takes it to run it.
extension IntentMailboxTests {
    static let eggs = IntentRecipient(owner: owner, app: "eggs")
    static let tea = IntentRecipient(owner: owner, app: "tea")

    @Test func anIntentGoesToItsAppAndToClientsThatNameNoAppAcrossARestart() async throws {
        let rig = try EngineRig(now: Self.monday)
        rig.runtime.intents.post(AlarmIntent("eggs-done"), button: .stop, alarm: Alarm.ID(), owner: Self.owner, app: "eggs")
        rig.runtime.intents.post(AlarmIntent("legacy"), button: .stop, alarm: Alarm.ID(), owner: Self.owner)
        let restarted = try rig.restarted()
        restarted.intents.post(AlarmIntent("tea-done"), button: .stop, alarm: Alarm.ID(), owner: Self.owner, app: "tea")
        // Each stream starts with what waits for it, in order: the last name proves what is not there.
        #expect(await restarted.intents.deliveries(for: Self.eggs).prefix(2).map(\.intent.name).collected() == ["eggs-done", "legacy"])
        #expect(await restarted.intents.deliveries(for: Self.tea).prefix(2).map(\.intent.name).collected() == ["legacy", "tea-done"])
        #expect(await restarted.intents.deliveries(for: Self.owner).prefix(3).map(\.intent.name).collected()
                == ["eggs-done", "legacy", "tea-done"], "a client that names no app sees all of its user's")
    }

    @Test func exactlyOneProcessOfTheAppTakesADeliveryUntilItGoesAway() async throws {
        let rig = try EngineRig(now: Self.monday)
        let mailbox = rig.runtime.intents
        let (one, two) = (IntentTaker(), IntentTaker())
        var ones = mailbox.deliveries(for: Self.eggs).makeAsyncIterator()
        var twos = mailbox.deliveries(for: Self.eggs).makeAsyncIterator()
        mailbox.post(AlarmIntent("eggs-done"), button: .stop, alarm: Alarm.ID(), owner: Self.owner, app: "eggs")
        let delivery = try #require(await ones.nextElement())
        #expect(await twos.nextElement() == delivery)

        #expect(mailbox.take(delivery.id, for: Self.eggs, by: one))
        #expect(!mailbox.take(delivery.id, for: Self.eggs, by: two))
        #expect(!mailbox.take(delivery.id, for: Self.tea, by: IntentTaker()), "another app's")
        mailbox.release(takenBy: two)
        #expect(!mailbox.take(delivery.id, for: Self.eggs, by: two), "releasing what it never held changes nothing")

        mailbox.release(takenBy: one)
        #expect(await twos.nextElement() == delivery, "sent again for another process to take")
        #expect(mailbox.take(delivery.id, for: Self.eggs, by: two))
        mailbox.acknowledge(delivery.id, for: Self.owner)
        #expect(!mailbox.take(delivery.id, for: Self.eggs, by: one), "acknowledged: nothing to take")
        #expect(mailbox.waiting(for: Self.owner).isEmpty)
    }

    /// Takes live in memory: after a restart a delivery taken and not acknowledged (its process
    /// died with the daemon, or is about to) waits, and is taken afresh.
    @Test func aTakenDeliveryNotYetAcknowledgedSurvivesARestart() async throws {
        let rig = try EngineRig(now: Self.monday)
        rig.runtime.intents.post(AlarmIntent("eggs-done"), button: .stop, alarm: Alarm.ID(), owner: Self.owner, app: "eggs")
        let delivery = try #require(rig.runtime.intents.waiting(for: Self.owner).first)
        #expect(rig.runtime.intents.take(delivery.id, for: Self.eggs, by: IntentTaker()))
        let restarted = try rig.restarted()
        #expect(restarted.intents.waiting(for: Self.owner) == [delivery])
        #expect(restarted.intents.take(delivery.id, for: Self.eggs, by: IntentTaker()))
    }
}

extension AsyncSequence where Self: Sendable {
    /// Every element until the sequence ends.
    func collected() async rethrows -> [Element] {
        try await reduce(into: []) { $0.append($1) }
    }
}
