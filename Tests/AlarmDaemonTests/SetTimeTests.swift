import AlarmClient
import AlarmControl
import AlarmDaemon
import AlarmEngine
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Logging
import Synchronization
import Testing

/// `setTime` on the real socket: a person's time for a clock nothing confirmed becomes the
/// clock's, and the source `phone`; NTP's synchronised time wins; nonsense is refused; an alarm
/// ringing goes on ringing.
@Suite(.timeLimit(.minutes(5))) struct SetTimeTests {
    static let release = ClockTrustPolicy.firmwareReleaseDate
    /// A clock restored 3 hours behind after a power cut.
    static let restored = release.addingTimeInterval(30 * 86_400)
    static let owner = ClientID(rawValue: 0)

    /// Sets the manual clock, as clock_settime sets the kernel's.
    struct ManualSetting: WallClockSetting {
        let clock: ManualWallClock
        func set(to time: Date) throws(ClockSetError) { clock.setWallClock(to: time) }
    }

    /// Whether the kernel reports NTP synchronisation, as the test says.
    final class NTPState: Sendable {
        let synchronized = Atomic(false)
    }

    final class Rig: Sendable {
        let directory: TemporaryDirectory
        let clock = ManualWallClock(now: SetTimeTests.restored)
        let ntp = NTPState()
        let device: AlarmDevice<AlarmDeviceTests.MixerBoard>
        let socketPath: String

        init() async throws {
            directory = try TemporaryDirectory()
            socketPath = directory.path + "/control.sock"
            let clock = self.clock, ntp = self.ntp
            let readings: @Sendable () -> ClockReadings = {
                ClockReadings(
                    now: clock.now, bootedAt: clock.now.addingTimeInterval(-60), ntpSynchronized: ntp.synchronized.load(ordering: .relaxed),
                    rtc: nil, savedClockAt: SetTimeTests.restored.addingTimeInterval(-10))
            }
            let card = FakeHardwareVolume(range: -60...0)
            let audio = FakeAudioOutput(clock: clock)
            device = try await AlarmDevice(
                configuration: AlarmDeviceTests.configuration(in: directory), clock: clock, timeZones: ManualTimeZoneProvider(.utc),
                authorizer: FixedAuthorization(.authorized), logger: AlarmDeviceTests.silent, clockReadings: readings
            ) { _ in AlarmDeviceTests.MixerBoard(card: card, audio: audio, clock: clock) }
            server = device.controlServer(
                .init(socketPath: socketPath), status: nil, selfTest: nil,
                clockSetter: ManualSetting(clock: clock))
            try server.start()
        }

        let server: ControlServer
    }

    /// Runs `body` with a client of a fresh rig's socket, then closes both.
    func withRig(_ body: (Rig, ControlClient) async throws -> Void) async throws {
        let rig = try await Rig()
        let client = ControlClient(path: rig.socketPath)
        do {
            try await body(rig, client)
        } catch {
            client.close()
            await rig.server.stop()
            throw error
        }
        client.close()
        await rig.server.stop()
    }

    @Test func aPhonesTimeSetsAnUnconfirmedClockAndTheSourceBecomesPhone() async throws {
        try await withRig { rig, client in
        _ = await rig.device.runtime.deviceSnapshot()
        #expect(await rig.device.runtime.timeSource?.source == .restored)
        let right = Self.restored.addingTimeInterval(3 * 3600)
        let report = try await client.setTime(right, from: .phone)
        #expect(report.previous == Self.restored)
        #expect(report.now == right)
        #expect(report.timeSource == .phone)
        #expect(rig.clock.now == right)
        }
    }

    @Test(arguments: [
        (Date(timeIntervalSince1970: 0), "before this firmware's release"),
        (restored.addingTimeInterval(20 * 365 * 86_400), "years ahead of the clock"),
    ])
    func nonsenseIsRefusedAndChangesNothing(_ time: Date, _ reason: String) async throws {
        try await withRig { rig, client in
        do {
            _ = try await client.setTime(time, from: .phone)
            Issue.record("accepted \(time)")
        } catch {
            // An invalid time reaches a client as AlarmKit's invalidConfiguration, with its reason.
            #expect("\(error)".contains(reason), "\(error)")
        }
        #expect(rig.clock.now == Self.restored)
        }
    }

    @Test func ntpWinsOverAPhoneThatDisagrees() async throws {
        try await withRig { rig, client in
        rig.ntp.synchronized.store(true, ordering: .relaxed)
        do {
            _ = try await client.setTime(Self.restored.addingTimeInterval(600), from: .phone)
            Issue.record("accepted a time NTP contradicts")
        } catch let error as ControlError {
            #expect(error.code == .refused)
            #expect(error.message.contains("NTP wins"))
        }
        #expect(rig.clock.now == Self.restored)
        // Within 30 s it agrees: nothing to set.
        let agreeing = try await client.setTime(Self.restored.addingTimeInterval(10), from: .phone)
        #expect(agreeing.now == Self.restored)
        }
    }

    @Test func settingTheTimeWhileAnAlarmRingsNeverSilencesIt() async throws {
        try await withRig { rig, client in
        let id = Alarm.ID()
        _ = try await rig.device.runtime.schedule(
            id: id, definition: AlarmDefinition(schedule: .fixed(Self.restored), countdownDuration: nil, presentation: .init(alert: .init(title: "Wake", stopButton: .stop))),
            client: Self.owner)
        _ = await rig.device.runtime.deviceSnapshot()
        #expect(await rig.device.runtime.alarms(for: Self.owner).first?.state == .alerting)
        _ = try await client.setTime(Self.restored.addingTimeInterval(3 * 3600), from: .phone)
        #expect(await rig.device.runtime.alarms(for: Self.owner).first?.state == .alerting)
        }
    }

    @Test func onlyAdministratorsMaySetTheTime() {
        #expect(ControlOperation.setTime.requiresAdministrator)
    }
}
