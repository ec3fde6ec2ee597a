import AlarmALSA
import AlarmAppliance
import AlarmClient
import AlarmDaemon
import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Glibc
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// The assembly on a board with a volume control: the household's volume (the phone page's)
/// is the card's, not the configuration file's with the page's applied in software on top.
@Suite struct AlarmDeviceTests {
    static let silent = Logger(label: "device-test", factory: { _ in SwiftLogNoOpLogHandler() })
    static let start = Date(timeIntervalSince1970: 1_767_250_800)  // 2026-01-01 07:00 UTC
    static let owner = ClientID(rawValue: 1000)

    /// A board whose sound plays through `card`'s volume control, as a mixer board's does.
    struct MixerBoard: DeviceBoard {
        let hardware: ApplianceHardware
        let volumeControlRange: ClosedRange<Double>?
        var soundProblemAtStart: HardwareError? { nil }
        func close() async {}

        init(card: FakeHardwareVolume, audio: FakeAudioOutput, clock: ManualWallClock) {
            volumeControlRange = try? card.range()
            let sound = HardwareVolumeAudioOutput(wrapping: audio, volume: card) { _ in }
            hardware = ApplianceHardware(
                buttons: FakeButtonInput(clock: clock), indicator: FakeIndicator(), audio: sound,
                display: FakeCharacterDisplay(size: .sixteenByTwo))
        }
    }

    /// The configuration file says -20 dB.
    static func configuration(in directory: TemporaryDirectory) -> DaemonConfiguration {
        var configuration = DaemonConfiguration()
        configuration.stateDirectory = directory.path
        configuration.appliance.volume = -20
        configuration.appliance.crescendo = .zero
        configuration.clockTrust = .always
        return configuration
    }

    /// The device, and the settings its board was opened with.
    static func device(
        _ configuration: DaemonConfiguration, card: FakeHardwareVolume, clock: ManualWallClock
    ) async throws -> (AlarmDevice<MixerBoard>, openedWith: ApplianceSettings?) {
        var openedWith: ApplianceSettings?
        let device = try await AlarmDevice(
            configuration: configuration, clock: clock, timeZones: ManualTimeZoneProvider(.utc),
            authorizer: FixedAuthorization(.authorized), logger: silent
        ) { settings in
            openedWith = settings
            return MixerBoard(card: card, audio: FakeAudioOutput(clock: clock), clock: clock)
        }
        return (device, openedWith)
    }

    /// An alarm a minute from now rings: the card is set for its sound.
    static func ring(_ device: AlarmDevice<MixerBoard>, clock: ManualWallClock) async throws {
        let due = clock.now.addingTimeInterval(60)
        let definition = AlarmDefinition(
            schedule: .fixed(due), countdownDuration: nil,
            presentation: AlarmPresentation(alert: .init(title: "Wake up", stopButton: .stop)))
        _ = try await device.runtime.schedule(id: UUID(), definition: definition, client: owner)
        clock.advance(to: due)
        await device.appliance.refresh()
    }

    @Test func theHouseholdsVolumeFromBeforeARestartIsTheCardsVolume() async throws {
        let directory = try TemporaryDirectory()
        let configuration = Self.configuration(in: directory)
        // The page chose -12 dB before the daemon restarted.
        try HouseholdSettingsFile(directory: directory.path, defaults: HouseholdSettings(configuration), logger: Self.silent)
            .change(to: HouseholdSettings(volumeDB: -12, crescendoSeconds: 0, snoozeSeconds: 540, autoSilenceSeconds: 900))
        let card = FakeHardwareVolume(range: -40...4)
        let clock = ManualWallClock(now: Self.start)
        let (device, openedWith) = try await Self.device(configuration, card: card, clock: clock)

        #expect(openedWith?.volume == -12)
        try await Self.ring(device, clock: clock)
        #expect(card.settings.last == -12)
        await device.shutdown()
    }

    /// The page and alarmctl read the clock's volume scale from `settings`: on this card, whose
    /// control spans -40 to +4 dB, the part alarmd plays, -40 to 0, so 50 % is -13 dB as
    /// alsamixer shows for it.
    @Test func theSettingsGiveTheCardsOwnVolumeScale() async throws {
        let directory = try TemporaryDirectory()
        let card = FakeHardwareVolume(range: -40...4)
        let clock = ManualWallClock(now: Self.start)
        let (device, _) = try await Self.device(Self.configuration(in: directory), card: card, clock: clock)
        let socketPath = directory.path + "/control.sock"
        let server = device.controlServer(.init(socketPath: socketPath), status: nil, selfTest: nil)
        try server.start()
        let client = ControlClient(path: socketPath)
        let report = try await client.settings()
        #expect(report.volumeScale == -40...0)
        #expect(report.decibels(percent: 50) == -13)
        client.close()
        await server.stop()
        await device.shutdown()
    }

    @Test func aVolumeChangedOnThePageIsTheCardsVolumeAtTheNextAlarm() async throws {
        let directory = try TemporaryDirectory()
        let card = FakeHardwareVolume(range: -40...4)
        let clock = ManualWallClock(now: Self.start)
        let (device, _) = try await Self.device(Self.configuration(in: directory), card: card, clock: clock)

        // What the page's setSettings does: keep the settings, then put them into effect.
        let chosen = HouseholdSettings(volumeDB: -6, crescendoSeconds: 0, snoozeSeconds: 540, autoSilenceSeconds: 900)
        try device.household.change(to: chosen)
        await DaemonOperations.putIntoEffect(chosen, appliance: device.appliance, runtime: device.runtime)
        try await Self.ring(device, clock: clock)
        #expect(card.settings.last == -6)
        await device.shutdown()
    }

    @Test func nightHoursChangedOnThePageTakeEffectAtOnce() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: Self.start)
        let (device, _) = try await Self.device(Self.configuration(in: directory), card: FakeHardwareVolume(range: -40...4), clock: clock)
        #expect(device.household.settings.nightHours == "off", "none in the configuration")
        var chosen = HouseholdSettings(volumeDB: -6, crescendoSeconds: 0, snoozeSeconds: 540, autoSilenceSeconds: 900, nightHours: "21:00-07:00")
        await DaemonOperations.putIntoEffect(try device.household.change(to: chosen), appliance: device.appliance, runtime: device.runtime)
        #expect(await device.appliance.settings.nightHours == NightHours("21:00-07:00"))
        chosen.nightHours = nil
        await DaemonOperations.putIntoEffect(try device.household.change(to: chosen), appliance: device.appliance, runtime: device.runtime)
        #expect(await device.appliance.settings.nightHours == NightHours("21:00-07:00"), "a client that sends none keeps them")
        chosen.nightHours = "off"
        await DaemonOperations.putIntoEffect(try device.household.change(to: chosen), appliance: device.appliance, runtime: device.runtime)
        #expect(await device.appliance.settings.nightHours == nil)
        await device.shutdown()
    }

    /// A display that notes, each time it is blanked, whether the control socket's file is there.
    final class SocketWatchingDisplay: CharacterDisplay {
        let display = FakeCharacterDisplay(size: .sixteenByTwo)
        let socketPath: String
        /// One entry per blank frame shown: did the socket's file exist then.
        let socketAtBlankFrames = Mutex<[Bool]>([])
        var size: DisplaySize { display.size }

        init(socketPath: String) {
            self.socketPath = socketPath
        }

        func show(_ frame: DisplayFrame) async throws {
            if frame == DisplayFrame(size: frame.size) {
                let exists = access(socketPath, F_OK) == 0
                socketAtBlankFrames.withLock { $0.append(exists) }
            }
            try await display.show(frame)
        }

        func setBacklight(_ on: Bool) async throws { try await display.setBacklight(on) }
        func define(_ glyph: Glyph, slot: Int) async throws { try await display.define(glyph, slot: slot) }
    }

    /// A board that notes, when it is released, whether the display is dark.
    final class RecordingBoard: DeviceBoard {
        let hardware: ApplianceHardware
        let watched: SocketWatchingDisplay
        let darkAtClose = Mutex<Bool?>(nil)
        var soundProblemAtStart: HardwareError? { nil }

        init(socketPath: String, clock: ManualWallClock) {
            watched = SocketWatchingDisplay(socketPath: socketPath)
            hardware = ApplianceHardware(
                buttons: FakeButtonInput(clock: clock), indicator: FakeIndicator(), audio: FakeAudioOutput(clock: clock),
                display: watched)
        }

        func close() async {
            let display = watched.display
            let dark = !display.isBacklightOn && display.frame == DisplayFrame(size: display.size)
            darkAtClose.withLock { $0 = dark }
        }
    }

    /// The order `systemctl stop` relies on: the socket closes while the engine and the
    /// appliance still run, then the parts go dark, then the board is released.
    @Test func gracefulShutdownClosesTheSocketThenDarkensThePartsThenReleasesTheBoard() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualWallClock(now: Self.start)
        let socketPath = directory.path + "/control.sock"
        let device = try await AlarmDevice(
            configuration: Self.configuration(in: directory), clock: clock, timeZones: ManualTimeZoneProvider(.utc),
            authorizer: FixedAuthorization(.authorized), logger: Self.silent
        ) { _ in RecordingBoard(socketPath: socketPath, clock: clock) }
        let server = device.controlServer(.init(socketPath: socketPath), status: nil, selfTest: nil)
        try server.start()
        let displayEvents = device.board.watched.display.events()
        let group = ServiceGroup(configuration: .init(
            services: device.services(control: server).map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup) },
            logger: Self.silent))
        async let running: Void = group.run()
        // The appliance runs once it has drawn the clock.
        for await event in displayEvents {
            if case .frame = event { break }
        }
        #expect(access(socketPath, F_OK) == 0)

        await group.triggerGracefulShutdown()
        try await running
        await device.shutdown()
        let blanked = device.board.watched.socketAtBlankFrames.withLock { $0 }
        #expect(!blanked.isEmpty && !blanked.contains(true), "the socket was closed before the display went blank")
        #expect(device.board.darkAtClose.withLock { $0 } == true, "the display was dark before the board was released")
    }
}
