import AlarmKitCore
import FoundationEssentials
import Testing

@testable import AlarmControl
@testable import AlarmProtocol
@testable import AlarmEngine

/// The bounds of fixed dates and countdowns over the socket: just inside, an alarm comes back
/// exactly as sent, in the answer and in the list; just outside, it is refused with the bounds.
@Suite(.timeLimit(.minutes(1)))
struct DefinitionBoundsTests {
    static let lastSecondOfYear9999 = Date(timeIntervalSince1970: 253_402_300_799)

    @Test func theLastAcceptedFixedDateAndTheLongestCountdownComeBackExactly() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let client = rig.client()
            defer { client.close() }
            var definition = Sample.definition(at: Self.lastSecondOfYear9999)
            definition.countdownDuration = .init(preAlert: AlarmDefinition.maximumCountdown, postAlert: AlarmDefinition.minimumCountdown)
            let id = Alarm.ID()
            let alarm = try await client.schedule(id: id, definition: definition)
            #expect(alarm.schedule == .fixed(Self.lastSecondOfYear9999))
            #expect(alarm.countdownDuration == definition.countdownDuration)
            #expect(try await client.alarms() == [alarm])
            #expect(await rig.runtime.allRecords().first { $0.id == id }?.definition == definition)
        }
    }

    @Test(arguments: [253_402_300_800, 1e18, -1e18, -1])
    func aFixedDateOutsideTheRangeIsRefused(_ seconds: TimeInterval) async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let client = rig.client()
            defer { client.close() }
            let error = await #expect(throws: AlarmOperationError.self) {
                try await client.schedule(id: Alarm.ID(), definition: Sample.definition(at: Date(timeIntervalSince1970: seconds)))
            }
            let alarms = try await client.alarms()
            #expect(alarms.isEmpty)
            guard case .invalidConfiguration(let reason)? = error else { return }
            #expect(reason.hasSuffix("a fixed date must be from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z"), "\(reason)")
        }
    }

    @Test(arguments: [AlarmDefinition.maximumCountdown.nextUp, AlarmDefinition.minimumCountdown.nextDown, 1e300])
    func aCountdownOutsideTheBoundsIsRefused(_ seconds: TimeInterval) async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let client = rig.client()
            defer { client.close() }
            let error = await #expect(throws: AlarmOperationError.self) {
                try await client.schedule(id: Alarm.ID(), definition: Sample.timer(seconds))
            }
            let alarms = try await client.alarms()
            #expect(alarms.isEmpty)
            guard case .invalidConfiguration(let reason)? = error else { return }
            #expect(reason.hasSuffix("it must be from 0.001 to 31622400 s"), "\(reason)")
        }
    }
}
