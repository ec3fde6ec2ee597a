import AlarmALSA
import AlarmAppliance
import AlarmControl
import AlarmDaemon
import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmProtocol
import AlarmSimulator
import AlarmTime
import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import ServiceLifecycle
import SimulatorConsole

/// `alarmd --simulate`: the engine and the appliance on the simulated board, drawn in the
/// terminal, with keys for the buttons. Real wall clock, or a virtual one with `--start` and
/// `--speed`. Sound goes to ALSA when the device opens, else the screen says it is silent.
struct SimulatorMode {
    let options: Alarmd

    func run() async throws {
        let recent = RecentLogLines(capacity: SimulatorScreen.logLineCount)
        let logger = Self.logger(to: recent, level: options.level)

        let zones = SystemTimeZoneProvider()
        let zone = (try? zones.currentZone()) ?? .utc
        let clock = try makeClock(zone: zone)

        let scratch: ScratchDirectory? = options.stateDir == nil ? try ScratchDirectory(prefix: "alarmd-simulator") : nil
        defer { scratch?.remove() }
        var configuration = DaemonConfiguration()
        configuration.stateDirectory = options.stateDir ?? scratch!.path

        let audio = ObservedAudioOutput(output: soundDevice(logger: logger), clock: clock)
        let buttons = FakeButtonInput(clock: clock)
        let indicator = FakeIndicator(hasColor: true)
        let display = FakeCharacterDisplay(size: options.displaySize ?? .sixteenByTwo)
        let light = FakeLight()   // the simulated board's sunrise light: its level is on the screen
        let device = try await AlarmDevice(
            configuration: configuration, clock: clock, timeZones: zones, authorizer: FixedAuthorization(.authorized),
            // This machine's clock state, at the simulated time.
            logger: logger, clockReadings: SystemClockReadings(now: { clock.now }).read
        ) { _ in
            DaemonBoard.simulated(ApplianceHardware(buttons: buttons, indicator: indicator, audio: audio, display: display, light: light))
        }

        guard case .raw(let terminal) = try RawTerminal.enter() else {
            throw ValidationError("--simulate needs a terminal to draw on and read keys from; use --script FILE to run a scenario without one")
        }
        defer { terminal.restore() }

        let console = Console(
            terminal: terminal, clock: clock, zones: zones, speed: options.start == nil && options.speed == 1 ? 1 : options.speed,
            display: display, indicator: indicator, light: light, audio: audio, recent: recent)
        // The simulated board's parts are fakes: their health is the appliance's faults.
        let server = openControlSocket(device: device, logger: logger)
        let page = server == nil || options.web == "off" ? nil : SimulatorPage.start(
            listen: options.web, socket: options.socket ?? Self.defaultSocketPath,
            stateDirectory: configuration.stateDirectory + "/web", logger: logger)
        let keys = TaskService {
            let person = device.runtime.manager(for: .currentUser)
            for await key in KeyReader.keys(from: terminal.input) {
                if key == .quit { break }
                await handle(key, buttons: buttons, clock: clock, manager: person, settings: device.configuration.appliance, logger: logger)
                console.requestRedraw()
            }
        }
        // Quitting ends the keys' service, and with it the group, in reverse order: the page
        // stops before the socket it uses closes.
        let pageService = TaskService {
            await UntilCancelled.wait()
            page?.stop()
        }
        let services = device.services(control: server) + [pageService, TaskService { await console.redrawWhileRunning() }, keys]
        let group = ServiceGroup(configuration: .init(
            services: services.map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup) },
            logger: logger))
        try await group.run()
        await device.shutdown()
    }

    /// A logger whose lines the screen shows (the latest few).
    private static func logger(to recent: RecentLogLines, level: Logger.Level) -> Logger {
        var logger = Logger(label: "alarmd", factory: { recent.handler(label: $0, level: level) })
        logger.logLevel = level
        return logger
    }

    /// The control socket, so that apps and alarmctl can use the simulated clock as the real one;
    /// the simulator runs without it if it cannot be opened (another simulator listens there).
    private func openControlSocket(device: AlarmDevice<DaemonBoard>, logger: Logger) -> ControlServer? {
        let path = options.socket ?? Self.defaultSocketPath
        // The person running the simulator owns its board: their group administers it, so the
        // phone page (alarm-web, run as them) may show every alarm and ask to pair.
        let server = device.controlServer(
            .init(socketPath: path, administrators: .init(groupID: getgid())),
            status: DaemonStatus(device: device, boardName: "simulated").report(alarmsOf:), selfTest: nil,
            clockSetter: RefusingWallClockSetting())
        do {
            try server.start()
        } catch {
            logger.warning("No control socket: apps and alarmctl cannot reach the simulator", metadata: ["error": "\(error)"])
            return nil
        }
        logger.notice("Apps and alarmctl: ALARMD_SOCKET=\(path)")
        return server
    }

    /// `$XDG_RUNTIME_DIR/alarmd-simulator.sock`, else `/tmp/alarmd-simulator-UID.sock`: the
    /// user's own, never the service's `/run/alarmd/control.sock`.
    static var defaultSocketPath: String {
        if let runtimeDirectory = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), access(runtimeDirectory, W_OK) == 0 {
            return runtimeDirectory + "/alarmd-simulator.sock"
        }
        return "/tmp/alarmd-simulator-\(getuid()).sock"
    }

    private func makeClock(zone: TimeZoneRules) throws -> any WallClock {
        if options.start == nil, options.speed == 1 { return SystemWallClock() }
        let start = options.start.flatMap(zone.instant(parsing:)) ?? SystemWallClock().now
        return try ScaledWallClock(start: start, speed: options.speed)
    }

    /// The ALSA device if it opens now; `nil` (a silent board) for `--sound silent` or no device.
    private func soundDevice(logger: Logger) -> (any AudioOutput)? {
        guard options.sound != "silent" else { return nil }
        let output = BoardParts.alsaOutput(device: options.sound, logger: logger)
        if let problem = output.probe() {
            logger.notice("No sound device; the simulated board is silent", metadata: ["error": "\(problem)"])
            return nil
        }
        return output
    }

    private func handle(
        _ key: SimulatorKey, buttons: FakeButtonInput, clock: any WallClock, manager: AlarmManager,
        settings: ApplianceSettings, logger: Logger
    ) async {
        switch key {
        case .shortPress(let button):
            // Released before the next key: `z` then `s` are two presses one after the other.
            buttons.press(button)
            buttons.release(button)
        case .longPress(let button):
            hold([button], buttons: buttons, clock: clock, settings: settings)
        case .bothHeld:
            hold([.stop, .snooze], buttons: buttons, clock: clock, settings: settings)
        case .demoAlarm:
            let title = "Demo alarm"
            let presentation = AlarmPresentation(
                alert: .init(title: title, stopButton: .stop, secondaryButton: .snooze, secondaryButtonBehavior: .countdown),
                countdown: .init(title: "Snoozing"))
            let configuration = AlarmManager.AlarmConfiguration<NoAlarmMetadata>(
                countdownDuration: .init(preAlert: nil, postAlert: 9 * 60),
                schedule: .fixed(clock.now.addingTimeInterval(60)),
                attributes: AlarmAttributes(presentation: presentation, tintColor: Color(red: 1, green: 0.5, blue: 0)))
            await schedule(configuration, manager: manager, logger: logger)
        case .demoTimer:
            let title = "Demo timer"
            let presentation = AlarmPresentation(
                alert: .init(title: title, stopButton: .stop, secondaryButton: .repeat, secondaryButtonBehavior: .countdown),
                countdown: .init(title: title, pauseButton: .pause),
                paused: .init(title: title, resumeButton: .resume))
            let configuration = AlarmManager.AlarmConfiguration<NoAlarmMetadata>.timer(
                duration: 120, attributes: AlarmAttributes(presentation: presentation, tintColor: Color(red: 0, green: 0.6, blue: 1)))
            await schedule(configuration, manager: manager, logger: logger)
        case .quit:
            break
        }
    }

    /// Presses `held` and releases them a little past the long-press time, in the clock's own
    /// (possibly virtual) time.
    private func hold(_ held: [Button], buttons: FakeButtonInput, clock: any WallClock, settings: ApplianceSettings) {
        held.forEach(buttons.press)
        let releaseAt = clock.now.addingTimeInterval(settings.longPressDuration / .seconds(1) + 0.5)
        Task {
            _ = try? await clock.sleep(until: releaseAt)
            held.forEach(buttons.release)
        }
    }

    private func schedule(_ configuration: AlarmManager.AlarmConfiguration<NoAlarmMetadata>, manager: AlarmManager, logger: Logger) async {
        do {
            _ = try await manager.schedule(id: UUID(), configuration: configuration)
        } catch {
            logger.error("Demo alarm refused", metadata: ["error": "\(error)"])
        }
    }
}

/// Draws the simulated board whenever something on it changes, and once a second for the clock
/// and the crescendo.
final class Console: Sendable {
    let terminal: RawTerminal
    let clock: any WallClock
    let zones: any TimeZoneProvider
    let speed: Double
    let display: FakeCharacterDisplay
    let indicator: FakeIndicator
    let light: FakeLight
    let audio: ObservedAudioOutput
    let recent: RecentLogLines
    private let redraws: AsyncStream<Void>
    private let redrawRequests: AsyncStream<Void>.Continuation

    init(
        terminal: RawTerminal, clock: any WallClock, zones: any TimeZoneProvider, speed: Double,
        display: FakeCharacterDisplay, indicator: FakeIndicator, light: FakeLight, audio: ObservedAudioOutput, recent: RecentLogLines
    ) {
        self.light = light
        self.terminal = terminal
        self.clock = clock
        self.zones = zones
        self.speed = speed
        self.display = display
        self.indicator = indicator
        self.audio = audio
        self.recent = recent
        (redraws, redrawRequests) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func requestRedraw() {
        redrawRequests.yield()
    }

    func redrawWhileRunning() async {
        await withDiscardingTaskGroup { group in
            let displayEvents = display.events(), indicatorEvents = indicator.events(), lightEvents = light.events()
            group.addTask { for await _ in displayEvents { self.requestRedraw() } }
            group.addTask { for await _ in indicatorEvents { self.requestRedraw() } }
            group.addTask { for await _ in lightEvents { self.requestRedraw() } }
            group.addTask {
                while !Task.isCancelled {
                    self.requestRedraw()
                    try? await Task.sleep(for: .seconds(1))
                }
            }
            group.addTask {
                var writer = ScreenWriter()
                for await _ in self.redraws {
                    if let bytes = writer.redraw(SimulatorScreen.lines(for: self.state()), size: self.terminal.size) {
                        try? ScreenWriter.write(bytes, to: self.terminal.output ?? STDOUT_FILENO)
                    }
                }
            }
            // The stream of redraws never ends by itself: end it with the task.
            await withTaskCancellationHandler {
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            } onCancel: {
                self.redrawRequests.finish()
            }
        }
    }

    private func state() -> SimulatorScreen.State {
        SimulatorScreen.State(
            lcdSize: display.size, lcdLines: display.lines, backlight: display.isBacklightOn,
            ledPattern: indicator.pattern, ledHasColor: indicator.hasColor, sound: sound(), light: light.output,
            clock: clockText(), speed: speed, log: recent.latest)
    }

    private func sound() -> SimulatorScreen.Sound {
        switch audio.status {
        case .idle:
            return audio.hasDevice ? .off : .silent(wouldPlay: nil)
        case .failed(let error):
            return .failed("\(error)")
        case .playing(let playback):
            guard audio.hasDevice else { return .silent(wouldPlay: playback.source) }
            let elapsed = clock.monotonicNow - playback.startedAt
            let ramping = elapsed < playback.gain.duration ? playback.gain.target : nil
            return .playing(playback.source, decibels: playback.gain.decibels(after: elapsed), rampingTo: ramping)
        }
    }

    private func clockText() -> String {
        let zone = (try? zones.currentZone()) ?? .utc
        let local = zone.localDateTime(at: clock.now)
        let weekdays: [Locale.Weekday: String] = [
            .monday: "Mon", .tuesday: "Tue", .wednesday: "Wed", .thursday: "Thu", .friday: "Fri",
            .saturday: "Sat", .sunday: "Sun",
        ]
        return "\(weekdays[local.date.weekday] ?? "") \(local.date) \(local.time) \(zone.identifier)"
    }
}
