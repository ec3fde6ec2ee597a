import AlarmAppliance
import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import FoundationEssentials
import Testing

/// The real `run()` of the engine and the appliance, concurrently, on a manual clock: nothing
/// sleeps in real time; the test waits for sleepers and for the fakes' events.
@Suite(.timeLimit(.minutes(5))) struct ApplianceRunLoopTests {
    @Test func theRunningDeviceRingsStopsOnAPressAndShutsDownDarkAndBlank() async throws {
        let clock = ManualWallClock(now: Scene.monday(6, 59))
        let directory = try TemporaryDirectory()
        let runtime = try AlarmRuntime(
            configuration: .init(clockTrust: .always, storeDirectory: directory.path), clock: clock,
            timeZones: ManualTimeZoneProvider(Scene.berlin), authorizer: FixedAuthorization(.authorized),
            logger: Scene.logger)
        let audio = FakeAudioOutput()
        let indicator = FakeIndicator()
        let display = FakeCharacterDisplay()
        let buttons = FakeButtonInput(clock: clock)
        let appliance = Appliance(
            runtime: runtime, hardware: ApplianceHardware(buttons: buttons, indicator: indicator, audio: audio, display: display),
            clock: clock, logger: Scene.logger)
        var sounds = audio.events().makeAsyncIterator()
        var patterns = indicator.events().makeAsyncIterator()

        let engine = Task { await runtime.run() }
        let device = Task { await appliance.run() }
        let id = Alarm.ID()
        _ = try await runtime.schedule(id: id, definition: Scene.alarm(7, 0), client: Scene.owner)
        await clock.waitForSleepers(2)   // the engine until 07:00, the appliance until 06:59:58
        // Two seconds ahead, the sound is made ready: loaded and the device opened.
        let preparation = Scene.monday(7, 0).addingTimeInterval(-2)
        #expect(clock.earliestSleeperDeadline == preparation)
        clock.advance(to: preparation)
        await clock.waitForSleepers(2)   // both until 07:00
        #expect(audio.preparations.map(\.source) == [.builtInTone])
        #expect(audio.preparations.map(\.duration) == [.seconds(4)])   // two seconds to go, two to spare
        #expect(clock.earliestSleeperDeadline == Scene.monday(7, 0))
        clock.advance(to: Scene.monday(7, 0))
        #expect(await sounds.nextElement() == .started(.builtInTone, gain: ApplianceSettings().gainRamp, looping: true))
        #expect(await patterns.nextElement() == .off)   // at start
        #expect(await patterns.nextElement() == .blink(.white, on: .milliseconds(250), off: .milliseconds(250)))

        buttons.press(.stop)
        #expect(await sounds.nextElement() == .stopped)
        buttons.release(.stop)

        device.cancel()
        engine.cancel()
        await device.value
        await engine.value
        #expect(audio.nowPlaying == nil)
        #expect(indicator.pattern == .off)
        #expect(display.frame == DisplayFrame(size: .sixteenByTwo))
        #expect(!display.isBacklightOn)
        #expect(await runtime.record(for: Scene.key(id)) == nil)
    }

    @Test func anUntrustedClockShowsTheTimeOnceTheClockIsSet() async throws {
        let clock = ManualWallClock(now: Scene.monday(6, 59))
        let directory = try TemporaryDirectory()
        let runtime = try AlarmRuntime(
            configuration: .init(clockTrust: .notBefore(Scene.monday(7, 0)), storeDirectory: directory.path), clock: clock,
            timeZones: ManualTimeZoneProvider(Scene.berlin), authorizer: FixedAuthorization(.authorized),
            logger: Scene.logger)
        let display = FakeCharacterDisplay()
        let appliance = Appliance(
            runtime: runtime,
            hardware: ApplianceHardware(
                buttons: FakeButtonInput(clock: clock), indicator: FakeIndicator(), audio: FakeAudioOutput(), display: display),
            clock: clock, logger: Scene.logger)
        var frames = display.events().makeAsyncIterator()

        let engine = Task { await runtime.run() }
        let device = Task { await appliance.run() }
        #expect(await frames.nextElement() == .glyph(slot: 0, DisplayIcon.bell.glyph))
        await clock.waitForSleepers(2)   // nothing is due: both sleep until a clock set wakes them
        #expect(display.lines == ["     --:--      ", " Clock not set  "])

        clock.setWallClock(to: Scene.monday(7, 30))
        while let event = await frames.nextElement() {
            if case .frame(let frame) = event, frame.description.contains("07:30") { break }
        }
        #expect(display.lines == ["     07:30      ", "   No alarms    "])
        device.cancel()
        engine.cancel()
        await device.value
        await engine.value
    }
}
