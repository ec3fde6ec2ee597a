import AlarmAppliance
import AlarmClient
import AlarmControl
import AlarmDaemon
import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import FoundationEssentials
import Glibc
import Testing

/// The self-test the running service performs on its own parts (`alarmd selftest` beside it):
/// each part shown, then the device's own state again, the display written whole; an alarm always
/// first.
@Suite(.timeLimit(.minutes(5))) struct ApplianceSelfTestTests {
    static let blink = IndicatorPattern.blink(.white, on: .milliseconds(250), off: .milliseconds(250))

    @Test func thePatternShowsThenTheScreenIsForgottenAndDrawnWholeAgain() async throws {
        let rig = try await ApplianceRig()
        let clockScreen = rig.display.frame
        #expect(clockScreen.description.contains("06:59"))
        var events = rig.display.events().makeAsyncIterator()
        let check = Task { try await rig.appliance.selfTest([.display], showFor: .seconds(2)) }
        await rig.clock.waitForSleepers()
        #expect(rig.display.frame == Appliance.selfTestPattern(size: .sixteenByTwo))
        #expect(rig.display.isBacklightOn)

        rig.clock.advance(by: 2)
        let results = try await check.value
        #expect(results.map(\.check) == [.display])
        guard case .shown(let detail) = results.first?.outcome else {
            Issue.record("the display check did not pass: \(results)")
            return
        }
        #expect(detail.contains("redrawn whole"))
        // After the pattern: forgotten (the driver rewrites everything), the glyphs, the screen.
        var afterPattern: [FakeCharacterDisplay.Event] = []
        var seenPattern = false
        while let event = await events.nextElement() {
            if case .frame(let frame) = event, frame == Appliance.selfTestPattern(size: .sixteenByTwo) {
                seenPattern = true
                continue
            }
            guard seenPattern else { continue }
            afterPattern.append(event)
            if case .frame = event { break }
        }
        let redraw = Array(afterPattern.drop { $0 != .forgotten })
        #expect(redraw.first == .forgotten, "\(afterPattern)")
        #expect(redraw.filter { if case .glyph = $0 { true } else { false } }.count == DisplayIcon.allCases.count)
        #expect(redraw.last == .frame(clockScreen))
        #expect(rig.display.frame == clockScreen)
        #expect(!rig.display.isBacklightOn)
        #expect(await !rig.appliance.isSelfTesting)
    }

    @Test func theLEDBlinksThenShowsTheDevicesPatternAgain() async throws {
        let rig = try await ApplianceRig()
        let idle = rig.indicator.pattern
        let check = Task { try await rig.appliance.selfTest([.led], showFor: .seconds(1)) }
        await rig.clock.waitForSleepers()
        #expect(rig.indicator.pattern == Self.blink)
        rig.clock.advance(by: 1)
        let results = try await check.value
        #expect(results.map(\.outcome) == [.shown("blinked for 1 s")])
        #expect(rig.indicator.pattern == idle)
    }

    @Test func aCheckIsRefusedWhileAnAlarmRingsAndTouchesNothing() async throws {
        let rig = try await ApplianceRig()
        try await rig.schedule(Scene.alarm(7, 0))
        try await rig.advanceToNextDeadline()
        let ringing = rig.display.frame
        #expect(rig.audio.nowPlaying != nil)
        #expect(rig.indicator.pattern == Self.blink)

        await #expect(throws: SelfTestRefusal.alarmRinging) {
            try await rig.appliance.selfTest([.led, .display, .sound], showFor: .seconds(2))
        }
        #expect(rig.display.frame == ringing)
        #expect(rig.audio.nowPlaying?.gain == ApplianceSettings().gainRamp)
        #expect(await !rig.appliance.isSelfTesting)
    }

    @Test func aSecondCheckWhileOneRunsIsRefused() async throws {
        let rig = try await ApplianceRig()
        let first = Task { try await rig.appliance.selfTest([.led], showFor: .seconds(1)) }
        await rig.clock.waitForSleepers()
        await #expect(throws: SelfTestRefusal.alreadyRunning) {
            try await rig.appliance.selfTest([.sound], showFor: .seconds(1))
        }
        rig.clock.advance(by: 1)
        _ = try await first.value
    }

    /// The engine and the appliance run as in the daemon: the alarm due during the check rings at
    /// its instant, takes the display back (drawn whole) and ends the check; the tone never plays.
    @Test func anAlarmDueDuringTheCheckRingsOnTimeAndEndsIt() async throws {
        let clock = ManualWallClock(now: Scene.monday(6, 59, 30))
        let directory = try TemporaryDirectory()
        let runtime = try AlarmRuntime(
            configuration: .init(clockTrust: .always, storeDirectory: directory.path), clock: clock,
            timeZones: ManualTimeZoneProvider(Scene.berlin), authorizer: FixedAuthorization(.authorized),
            logger: Scene.logger)
        let audio = FakeAudioOutput()
        let indicator = FakeIndicator()
        let display = FakeCharacterDisplay()
        let appliance = Appliance(
            runtime: runtime,
            hardware: ApplianceHardware(buttons: FakeButtonInput(clock: clock), indicator: indicator, audio: audio, display: display),
            clock: clock, logger: Scene.logger)
        var sounds = audio.events().makeAsyncIterator()
        var frames = display.events().makeAsyncIterator()
        let engine = Task { await runtime.run() }
        let device = Task { await appliance.run() }
        _ = try await runtime.schedule(id: Alarm.ID(), definition: Scene.alarm(7, 0), client: Scene.owner)
        await clock.waitForSleepers(2)   // the engine until 07:00, the appliance until the sound's preparation

        let check = Task { try await appliance.selfTest([.display, .sound], showFor: .seconds(60)) }
        await clock.waitForSleepers(3)   // and the check, showing the pattern until 07:00:30
        #expect(display.frame == Appliance.selfTestPattern(size: .sixteenByTwo))
        clock.advance(to: Scene.monday(7, 0).addingTimeInterval(-2))
        await clock.waitForSleepers(3)
        clock.advance(to: Scene.monday(7, 0))

        #expect(await sounds.nextElement() == .started(.builtInTone, gain: ApplianceSettings().gainRamp, looping: true))
        #expect(clock.now == Scene.monday(7, 0))
        let results = try await check.value
        #expect(results.map(\.check) == [.display, .sound])
        #expect(results.map(\.outcome) == [.interrupted, .interrupted])
        // The idle screen names the next alarm too: the alert is the first frame after the pattern.
        while let event = await frames.nextElement(), event != .frame(Appliance.selfTestPattern(size: .sixteenByTwo)) {}
        var redraw: [FakeCharacterDisplay.Event] = []
        while let event = await frames.nextElement() {
            redraw.append(event)
            if case .frame = event { break }
        }
        #expect(redraw.contains(.forgotten), "the alert is drawn over the pattern whole: \(redraw)")
        #expect(display.frame.description.contains("Wake up"))
        #expect(display.isBacklightOn)
        #expect(indicator.pattern == Self.blink)
        #expect(audio.nowPlaying?.gain == ApplianceSettings().gainRamp, "the alarm's sound, not the check's tone")

        device.cancel()
        engine.cancel()
        await device.value
        await engine.value
    }
}

/// The daemon's `selfTest` operation on the control socket, on the same appliance.
@Suite(.timeLimit(.minutes(5)), .enabled(if: getuid() == 0, "root is the administrator the operation needs"))
struct SelfTestOperationTests {
    func serving(_ body: (ApplianceRig, ControlClient) async throws -> Void) async throws {
        let rig = try await ApplianceRig()
        let board = DaemonOperations.SelfTestBoard(
            buttons: { .init(working: true, detail: "lines held by alarmd and working") },
            mixer: { .success(-102...4) })
        let socket = rig.directory.path + "/control.sock"
        var handlers = ControlHandlers()
        handlers.register(.selfTest, DaemonOperations.selfTestHandler(appliance: rig.appliance, board: board))
        let server = ControlServer(configuration: .init(socketPath: socket), runtime: rig.runtime, handlers: handlers, logger: Scene.logger)
        try server.start()
        let client = ControlClient(path: socket)
        do {
            try await body(rig, client)
        } catch {
            client.close()
            await server.stop()
            throw error
        }
        client.close()
        await server.stop()
    }

    func selfTest(_ client: ControlClient, _ parts: [String], seconds: Double = 0) async throws -> SelfTestReport {
        try await client.selfTest(SelfTestParameters(parts: parts, showSeconds: seconds))
    }

    @Test func everyPartIsReportedInTheOrderAskedWithTheVolumeControl() async throws {
        try await serving { _, client in
            let report = try await selfTest(client, ["sound", "buttons", "led"])
            #expect(report.parts.map(\.part) == ["sound", "buttons", "led"])
            #expect(report.parts.map(\.passed) == [true, true, true])
            #expect(report.parts[0].detail == "tone played for 0 s; volume control -102...4 dB")
            #expect(report.parts[1].detail == "lines held by alarmd and working")
        }
    }

    @Test func whileAnAlarmRingsTheCheckIsRefusedWithBusy() async throws {
        try await serving { rig, client in
            try await rig.schedule(Scene.alarm(7, 0))
            try await rig.advanceToNextDeadline()
            await #expect(throws: ControlError(.busy, "self-test not started: an alarm is ringing: stop it, then run the self-test")) {
                _ = try await selfTest(client, ["display"])
            }
            #expect(rig.audio.nowPlaying != nil)
        }
    }

    @Test func unknownOrRepeatedPartsAndBadSecondsAreMalformed() async throws {
        try await serving { _, client in
            for (parts, seconds) in [(["speaker"], 0.0), (["led", "led"], 0), ([], 0), (["led"], 61), (["led"], -1)] {
                do {
                    _ = try await selfTest(client, parts, seconds: seconds)
                    Issue.record("\(parts) for \(seconds) s was accepted")
                } catch let error as ControlError {
                    #expect(error.code == .malformed, "\(error)")
                }
            }
        }
    }
}
