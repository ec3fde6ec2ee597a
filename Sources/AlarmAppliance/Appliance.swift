import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials
import Logging
import Synchronization

/// The bedside device: turns the engine's alarms into light, sound and text, and the buttons into
/// alarm actions.
///
/// It is level-triggered: every wake-up (a button, an engine event, a sound fault, its own timer)
/// reads the engine's whole ``DeviceSnapshot`` and brings each part in line with it, so a lost
/// event or a part that failed once can never leave the device showing the wrong thing. Between
/// wake-ups it sleeps: once a minute for an idle clock, once a second for a countdown, plus
/// scrolling titles and the backlight's timeout; with the display failed, only for its retries,
/// which back off to one every five minutes. No polling.
///
/// ```swift
/// let appliance = Appliance(runtime: runtime, hardware: hardware, clock: clock,
///                           settings: ApplianceSettings(), logger: logger)
/// async let device: Void = appliance.run()   // until cancelled; then LED off, sound stopped
/// ```
///
/// Tests and the scenario runner drive it step by step instead of `run()`: ``start()``,
/// ``handle(_:)`` for button events, ``refresh()`` when time has moved, ``nextWake`` to know when.
public actor Appliance {
    let runtime: AlarmRuntime
    let hardware: ApplianceHardware
    let clock: any WallClock
    public private(set) var settings: ApplianceSettings
    let logger: Logger
    let renderer: ScreenRenderer

    var gestures: ButtonGestures
    /// Buttons whose current press already acted (on an alert, or to acknowledge missed alarms):
    /// its release or long press does nothing more.
    var consumedPresses: Set<Button> = []
    /// A second debouncing stage, for chatter that got past the backend's; with the last level
    /// each button reported, which a dropped edge's confirmation reads.
    var debouncer: ButtonDebouncer
    var reportedLevel: [Button: ButtonEvent.Edge] = [:]
    var backlightUntil: Date?
    var nextAlarmShownUntil: Date?
    /// Until when the display says how a countdown ends ("Hold STOP to end"), after a short STOP
    /// that did not end it.
    var stopHintShownUntil: Date?
    var lastSnapshot: DeviceSnapshot?

    var content: ScreenContent?
    var contentSince = Date(timeIntervalSince1970: 0)
    var shownFrame: DisplayFrame?
    var backlightOn: Bool?
    var glyphsLoaded = false
    var nextScreenChange: Date?

    var shownPattern: IndicatorPattern?

    /// What the sound output is doing, for which alarm.
    var soundState = SoundState.silent
    /// The sound's health: a fault shows until the next sound that plays; retried at a fixed
    /// interval while an alert has no sound.
    var sound = PartHealth.working
    /// The display's and the LED's: retried after a wait that doubles up to five minutes, so a
    /// part that stays missing costs a few wake-ups an hour.
    var display = PartHealth.working
    var indicator = PartHealth.working

    /// Why the last attempt to play failed; cleared by the next sound that plays.
    public var soundFault: HardwareError? { sound.fault }
    /// Why the display last failed; cleared once it answers.
    public var displayFault: HardwareError? { display.fault }
    /// Why the LED last failed; cleared once it shows a pattern.
    public var indicatorFault: HardwareError? { indicator.fault }

    /// Questions waiting for the person's answer, oldest first.
    var prompts: [PendingPrompt] = []
    /// Numbers the prompts, so each one is new content on the display.
    var promptsAsked: UInt64 = 0
    /// Whether the last refresh showed an alert: its end starts the questions' quiet time.
    var alertShown = false
    /// Until when (monotonic) a gesture does not answer a question: the end of an alert plus
    /// ``questionQuietAfterAlert``.
    var questionsQuietUntil: Duration?
    /// When (monotonic) the last phone pairing was put to the person.
    var lastPairingAsked: Duration?
    /// The run loop's input, so work that arrives from outside (a prompt) wakes it.
    var loopInput: AsyncStream<Input>.Continuation?
    /// A self-test running on the appliance's own parts (the daemon's `selfTest`), and the part
    /// it holds now; an alert takes that part back at once (see ``selfTest(_:showFor:)``).
    var selfTestHold: SelfTestHold?

    struct PendingPrompt {
        var question: DevicePrompt
        var deadline: Date
        var answer: CheckedContinuation<PromptAnswer, Never>
    }

    /// How a question on the display ended.
    enum PromptAnswer: Sendable {
        case yes, no, unanswered
        /// An alert took the display before anyone answered: the asker must ask again.
        case withdrawn
    }

    /// How long after an alert ends a gesture still does not answer a question: the person was
    /// woken moments ago and is pressing buttons to silence the alarm, not to decide anything.
    static let questionQuietAfterAlert: Duration = .seconds(10)
    /// At most one phone pairing question a minute: a stranger on the network asking over and
    /// over must not keep lighting the bedside display.
    static let pairingQuestionInterval: Duration = .seconds(60)

    public init(
        runtime: AlarmRuntime,
        hardware: ApplianceHardware,
        clock: any WallClock,
        settings: ApplianceSettings = ApplianceSettings(),
        logger: Logger
    ) {
        self.runtime = runtime
        self.hardware = hardware
        self.clock = clock
        self.settings = settings
        self.logger = logger
        self.renderer = ScreenRenderer(size: hardware.display.size, clockFormat: settings.clockFormat)
        self.gestures = ButtonGestures(longPressDuration: settings.longPressDuration)
        self.debouncer = ButtonDebouncer(interval: settings.debounceInterval)
    }

    // MARK: - Running

    /// Runs the device until the task is cancelled, then leaves it dark and silent.
    public func run() async {
        // Subscribe before the first look, so nothing that happens in between is missed.
        let buttonEvents = hardware.buttons.events()
        let engineSnapshots = runtime.deviceSnapshots()
        let soundFailures = hardware.audio.failures()
        let (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        loopInput = feed
        await start()
        logger.info("Appliance started", metadata: ["display.size": "\(renderer.size.columns)x\(renderer.size.rows)"])
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await event in buttonEvents { feed.yield(.button(event)) }
            }
            group.addTask {
                for await snapshot in engineSnapshots { feed.yield(.engineChanged(snapshot)) }
            }
            group.addTask {
                for await failure in soundFailures { feed.yield(.soundFailed(failure)) }
            }
            group.addTask {
                await self.process(inputs, feed: feed)
            }
        }
        loopInput = nil
        await shutdown()
        logger.info("Appliance stopped")
    }

    enum Input: Sendable {
        case button(ButtonEvent)
        /// The engine published a change, and the device's view right after it.
        case engineChanged(DeviceSnapshot)
        /// A client asks the person a question: the display shows it.
        case promptAdded
        case soundFailed(HardwareError)
        case timer
    }

    /// Handles inputs one at a time, with one timer armed for ``nextWake``.
    private func process(_ inputs: AsyncStream<Input>, feed: AsyncStream<Input>.Continuation) async {
        var timer: (deadline: Date, cancel: @Sendable () -> Void)?
        func arm(_ wake: Date?) {
            // With nothing due, still sleep on the clock: a clock set ends the sleep, and the
            // screen must follow it (`--:--` becomes the time once NTP has set the clock).
            let deadline = wake ?? SystemWallClock.latestArmableDeadline
            guard timer?.deadline != deadline else { return }
            timer?.cancel()
            // Fed from the clock's own thread: the idle clock's minute wakes one worker, not two.
            timer = (deadline, clock.wake(at: deadline) { _ in feed.yield(.timer) })
        }
        arm(nextWake)
        for await input in inputs {
            switch input {
            case .button(let event):
                await handle(event)
            case .engineChanged(let snapshot):
                await refresh(publishedSnapshot: snapshot)
            case .promptAdded:
                await refresh()
            case .soundFailed(let failure):
                await soundFailed(failure)
            case .timer:
                timer = nil
                await refresh()
            }
            arm(nextWake)
        }
        timer?.cancel()
    }

    /// Loads the display's glyphs and brings every part in line with the engine.
    public func start() async {
        await refresh()
    }

    /// Leaves the device dark and silent: sound stopped, LED off, display cleared, backlight off.
    public func shutdown() async {
        answerAllPrompts(.unanswered)
        interruptSelfTest()
        await hardware.audio.stop()
        soundState = .silent
        try? await hardware.indicator.show(.off)
        try? await hardware.display.show(DisplayFrame(size: renderer.size))
        try? await hardware.display.setBacklight(false)
        shownPattern = .off
        shownFrame = nil
        backlightOn = false
    }

    /// When the appliance next needs to wake by itself: the next change on the screen, the
    /// backlight's timeout, a part's retry, a held button becoming a long press. A failed display
    /// has no screen to change: only its retry wakes the appliance for it, and the retry redraws.
    public var nextWake: Date? {
        let now = clock.now
        var candidates = [sound.retryAt, display.retryAt, indicator.retryAt, prompts.first?.deadline]
        var timeouts = [soundState.prepareAt]
        if display.isWorking {
            candidates.append(nextScreenChange)
            timeouts += [backlightUntil, nextAlarmShownUntil, stopHintShownUntil]
        }
        candidates += timeouts.map { $0.flatMap { $0 > now ? $0 : nil } }
        var monotonicDeadlines = Button.allCases.compactMap { debouncer.confirmationDeadline(for: $0) }
        if let held = gestures.nextDeadline { monotonicDeadlines.append(held) }
        if let soonest = monotonicDeadlines.min() {
            candidates.append(now.addingTimeInterval(max(soonest - clock.monotonicNow, .zero) / .seconds(1)))
        }
        return candidates.compactMap { $0 }.min()
    }

    /// Whether the backlight is on, as last set.
    public var isBacklightOn: Bool { backlightOn ?? false }

    // MARK: - Bringing the parts in line

    /// Catches the engine up with the clock and brings sound, LED and display in line with it.
    ///
    /// `publishedSnapshot`, the one the engine published with a change, is used as it is unless
    /// a newer one was seen already: an alert's sound then starts without a call into the engine,
    /// which may still be busy making the change durable.
    public func refresh(publishedSnapshot: DeviceSnapshot? = nil) async {
        expirePrompts()
        await confirmDebouncedLevels()
        await handleLongPresses()
        let snapshot: DeviceSnapshot
        if let publishedSnapshot, publishedSnapshot.revision >= (lastSnapshot?.revision ?? 0) {
            snapshot = publishedSnapshot
        } else {
            snapshot = await runtime.deviceSnapshot()
        }
        lastSnapshot = snapshot
        noteAlerts(in: snapshot)
        // An alert takes back whatever part a self-test holds, in this same refresh.
        if !snapshot.alerting.isEmpty, let held = interruptSelfTest() { await handBack(held) }
        let heldBySelfTest = selfTestHold?.part
        await updateSound(snapshot)
        if heldBySelfTest != .sound { await prepareSoundIfDue(snapshot) }
        // The display first: the LED shows whether the display works.
        if heldBySelfTest != .display { await updateDisplay(snapshot) }
        if heldBySelfTest != .led { await updateIndicator(snapshot) }
    }

    /// The sound device was found missing while nothing plays (a probe at start): shown at once
    /// (LED pattern, "No sound" on the clock screen) rather than only when an alarm fails to
    /// play. The next alert still tries to play, and a playback that works clears it.
    public func soundUnavailable(_ error: HardwareError) async {
        guard soundState.source == nil else { return }
        sound.recordFault(error)
        await refresh()
    }

    /// The household's volume and crescendo, from the next alert on (one ringing now keeps its
    /// sound).
    public func setSound(volume: Double, crescendo: Duration) {
        settings.volume = volume
        settings.crescendo = crescendo
    }

    /// Plays the built-in tone at `volume` for `length`, so a person hears a volume before
    /// keeping it. Refused (`false`) while an alarm rings; an alert that begins meanwhile takes
    /// the sound over.
    public func playSample(volume: Double, for length: Duration = .seconds(3)) async throws(HardwareError) -> Bool {
        guard case .quiet = soundState else { return false }
        do {
            try await hardware.audio.play(.builtInTone, gain: .constant(volume), looping: true)
        } catch {
            throw error as? HardwareError ?? HardwareError(.io, device: "audio", errno: nil)
        }
        // The device no longer holds what was prepared for the next alert: prepare again.
        soundState = .silent
        let until = clock.now.addingTimeInterval(length / .seconds(1))
        Task {
            _ = try? await clock.sleep(until: until)
            await self.endSample()
        }
        return true
    }

    private func endSample() async {
        guard case .quiet = soundState else { return }
        await hardware.audio.stop()
        await refresh()
    }

    /// A failure that ended playback (the device went away mid-alert): fall back and retry.
    public func soundFailed(_ error: HardwareError) async {
        guard case .alert(let alarm, let source?, _) = soundState else { return }
        logger.error("Alarm sound failed while playing", metadata: [
            "alarm.id": "\(alarm.id)", "client": "\(alarm.owner)", "sound": "\(source)", "error": "\(error)",
        ])
        soundState.soundStopped(namedSoundFailed: source.isFile)
        sound.recordFault(error)
        await refresh()
    }

    private func updateSound(_ snapshot: DeviceSnapshot) async {
        guard let presented = snapshot.alerting.first else {
            if case .alert(_, let source, _) = soundState {
                if source != nil { await hardware.audio.stop() }
                // The next alert tries its named sound again (a busy device may be free by then).
                soundState = .silent
            }
            sound.cancelRetry()
            return
        }
        if soundState.playingAlarm == presented.key { return }
        if soundState.source == nil, let retryAt = sound.retryAt, snapshot.now < retryAt { return }
        await startSound(for: presented, in: snapshot)
    }

    /// What an alert of `alarm` tries to play, in order: its named sound (unless that already
    /// failed for it), then the built-in tone.
    private func soundSources(for alarm: AlarmRecord) -> [SoundSource] {
        var sources: [SoundSource] = []
        if case .named(let name) = alarm.definition.sound, !soundState.namedSoundFailed(for: alarm.key) {
            sources.append(.file(settings.soundsDirectory + "/" + name))
        }
        sources.append(.builtInTone)
        return sources
    }

    /// Shortly before an alert is due (``ApplianceSettings/soundPreparationLead``), has the sound
    /// output load the alarm's sound and open the device, so the alert is heard the moment it
    /// begins rather than after the device opened (tens of milliseconds on a slow board). Nothing
    /// is prepared while something plays. Schedules its own next wake-up.
    private func prepareSoundIfDue(_ snapshot: DeviceSnapshot) async {
        guard case .quiet(let prepared, _) = soundState else { return }
        soundState = .quiet(prepared: prepared, prepareAt: nil)
        let lead = settings.soundPreparationLead
        guard lead > .zero, snapshot.alerting.isEmpty, let upcoming = Self.upcomingAlert(in: snapshot) else { return }
        let alert = SoundState.PreparedAlert(alarm: upcoming.record.key, at: upcoming.at)
        if prepared == alert { return }
        let from = upcoming.at.addingTimeInterval(-(lead / .seconds(1)))
        guard snapshot.now >= from else {
            soundState = .quiet(prepared: prepared, prepareAt: from)
            return
        }
        let left = upcoming.at.timeIntervalSince(snapshot.now)
        guard left > 0 else { return }
        soundState = .quiet(prepared: alert, prepareAt: nil)
        // Held past the instant, for an engine that wakes a little late; released unused after that.
        await hardware.audio.prepare(soundSources(for: upcoming.record)[0], for: .seconds(left) + lead)
    }

    /// The next moment the engine starts an alert by itself, and for which alarm: the scheduled
    /// alarm due first or the running countdown that ends first (a timer, a pre-alert, a snooze).
    /// A scheduled alarm with a pre-alert countdown begins that countdown instead: preparing for
    /// it costs a device opened for a few seconds for nothing.
    static func upcomingAlert(in snapshot: DeviceSnapshot) -> (record: AlarmRecord, at: Date)? {
        var candidates: [(record: AlarmRecord, at: Date)] = []
        if let next = snapshot.nextAlarm { candidates.append((next.record, next.dueDate)) }
        for record in snapshot.countdowns {
            if case .countdown(let countdown) = record.phase { candidates.append((record, countdown.fireDate)) }
        }
        return candidates.min { $0.at < $1.at }
    }

    /// Plays the alarm's sound, or the built-in tone if that fails; if nothing plays, the fault is
    /// recorded (the LED and display still alert) and playing is retried later.
    private func startSound(for alarm: AlarmRecord, in snapshot: DeviceSnapshot) async {
        let sources = soundSources(for: alarm)
        let gain = gainRamp(in: snapshot)
        var lastError: HardwareError?
        var namedSoundFailed = soundState.namedSoundFailed(for: alarm.key)
        for source in sources {
            do {
                try await hardware.audio.play(source, gain: gain, looping: true)
                soundState = .alert(alarm: alarm.key, source: source, namedSoundFailed: namedSoundFailed)
                if !sound.isWorking || lastError != nil {
                    logger.notice("Alarm sound playing", metadata: ["alarm.id": "\(alarm.id)", "sound": "\(source)"])
                }
                sound.recordSuccess()
                return
            } catch {
                let failure = error as? HardwareError ?? HardwareError(.io, device: "audio", errno: nil)
                lastError = failure
                if source.isFile { namedSoundFailed = true }
                logger.warning("Alarm sound could not play", metadata: [
                    "alarm.id": "\(alarm.id)", "sound": "\(source)", "error": "\(failure)",
                ])
            }
        }
        soundState = .alert(alarm: alarm.key, source: nil, namedSoundFailed: namedSoundFailed)
        if sound.isWorking {
            logger.error("No sound for the alarm: alerting with the LED and display only; retrying", metadata: [
                "alarm.id": "\(alarm.id)", "retry.seconds": "\(settings.soundRetryInterval)",
            ])
        }
        // During an alert the sound is retried at a fixed interval: the person is waiting for it.
        let retry = RetryBackoff(first: settings.soundRetryInterval, limit: settings.soundRetryInterval)
        sound.recordFailure(lastError ?? HardwareError(.io, device: "audio", errno: nil), at: snapshot.now, backoff: retry)
    }

    /// The crescendo, continued from when the first of the alerting alarms began: a second alarm
    /// or a retry after a fault does not start quiet again.
    private func gainRamp(in snapshot: DeviceSnapshot) -> GainRamp {
        let ramp = settings.gainRamp
        let since = snapshot.alerting.compactMap { record -> Date? in
            if case .alerting(let alerting) = record.phase { return alerting.since }
            return nil
        }.min() ?? snapshot.now
        let elapsed = Duration.seconds(max(snapshot.now.timeIntervalSince(since), 0))
        guard elapsed < ramp.duration else { return .constant(ramp.target) }
        return GainRamp(from: ramp.decibels(after: elapsed), to: ramp.target, over: ramp.duration - elapsed)
    }

    private func updateIndicator(_ snapshot: DeviceSnapshot) async {
        let pattern = IndicatorPolicy.pattern(for: indicatorState(snapshot))
        guard pattern != shownPattern else { return }
        do {
            try await hardware.indicator.show(pattern)
            shownPattern = pattern
            if indicator.recordSuccess() { logger.notice("LED works again") }
        } catch {
            let failure = error as? HardwareError ?? HardwareError(.io, device: "led", errno: nil)
            if indicator.recordFailure(failure, at: snapshot.now, backoff: settings.displayRetryBackoff) {
                logger.error("LED cannot be driven", metadata: ["error": "\(error)"])
            }
            shownPattern = nil
        }
    }

    func indicatorState(_ snapshot: DeviceSnapshot) -> IndicatorState {
        if let alert = snapshot.alerting.first { return .alerting(tint: alert.definition.tintColor) }
        if let countdown = snapshot.countdowns.first {
            if case .paused = countdown.phase { return .paused(tint: countdown.definition.tintColor) }
            return .countingDown(tint: countdown.definition.tintColor)
        }
        if !sound.isWorking || !display.isWorking || snapshot.storage.displayText != nil { return .hardwareFault }
        if !snapshot.missedAlarms.isEmpty { return .missedAlarm }
        return .idle
    }

    private func updateDisplay(_ snapshot: DeviceSnapshot) async {
        let now = snapshot.now
        let showsNextAlarm = nextAlarmShownUntil.map { now < $0 } ?? false
        let prompt = prompts.first?.question
        let newContent = ScreenRenderer.content(of: snapshot, showsNextAlarm: showsNextAlarm, prompting: prompt)
        if newContent != content {
            content = newContent
            contentSince = now
        }
        let output = renderer.render(.init(
            snapshot: snapshot, showsNextAlarm: showsNextAlarm,
            soundFault: soundFault.map { "No sound: \($0.device)" }, contentSince: contentSince, prompt: prompt,
            countdownHint: stopHintShownUntil.map { now < $0 } ?? false ? ScreenRenderer.holdStopHint : nil))
        nextScreenChange = output.nextChange
        let backlight = !snapshot.alerting.isEmpty || !prompts.isEmpty || (backlightUntil.map { now < $0 } ?? false)
        do {
            if !glyphsLoaded {
                for icon in DisplayIcon.allCases {
                    try await hardware.display.define(icon.glyph, slot: Int(icon.code))
                }
                glyphsLoaded = true
            }
            if output.frame != shownFrame {
                try await hardware.display.show(output.frame)
                shownFrame = output.frame
            }
            if backlight != backlightOn {
                try await hardware.display.setBacklight(backlight)
                backlightOn = backlight
            }
            if display.recordSuccess() { logger.notice("Display works again") }
        } catch {
            let failure = error as? HardwareError ?? HardwareError(.io, device: "display", errno: nil)
            if display.recordFailure(failure, at: now, backoff: settings.displayRetryBackoff) {
                logger.error("Display does not answer; alarms still ring", metadata: ["error": "\(error)"])
            }
            // Whatever the display holds now is unknown: redraw everything once it answers.
            glyphsLoaded = false
            shownFrame = nil
            backlightOn = nil
        }
    }
}

// MARK: - Asking the person

/// How a phone pairing question at the device ended.
public enum PairingOutcome: Hashable, Sendable {
    /// STOP and SNOOZE held together: yes.
    case allowed
    /// STOP pressed: no.
    case refused
    /// Nobody answered within ``ApplianceSettings/authorizationTimeout``.
    case unanswered
    /// An alarm rang before anyone answered (or was ringing when it was asked): the display
    /// woke someone instead, and the phone must ask again.
    case withdrawn
    /// A pairing was asked less than a minute ago: the display is not lit for another one yet.
    case tooSoon(retryAfter: Duration)
}

extension Appliance {
    /// Asks the person at the device whether `client` may set alarms: the display asks
    /// "Allow NAME to set alarms?"; STOP and SNOOZE held together answer yes, STOP no. Nobody
    /// answering within ``ApplianceSettings/authorizationTimeout``, or an alert taking the display
    /// first, leaves it `.notDetermined`. Prompts queue.
    public func requestAuthorization(for client: ClientID, named name: String) async -> AlarmManager.AuthorizationState {
        let answer = await ask(
            .init(question: "Allow \(name) to set alarms?", tallLines: ["Allow " + name, "to set alarms?"]),
            about: ["client": "\(client)", "user": "\(name)"])
        switch answer {
        case .yes: return .authorized
        case .no: return .denied
        case .unanswered, .withdrawn: return .notDetermined
        }
    }

    /// Asks the person at the device whether a phone may use the clock's page: "Pair phone
    /// NAME? Code CODE", where CODE is what the phone shows.
    ///
    /// The answer must be meant: yes is STOP and SNOOZE held together for the long-press time, a
    /// gesture no alarm uses, and STOP is no. A question an alert covers is withdrawn, gestures
    /// for ``questionQuietAfterAlert`` after an alert do not answer, and a pairing asked within
    /// ``pairingQuestionInterval`` of the last one is refused without lighting the display. So a
    /// stranger who asks just before an alarm gets nothing from the sleeper's presses.
    public func requestPairing(named name: String, code: String) async -> PairingOutcome {
        let now = clock.monotonicNow
        if let last = lastPairingAsked, now - last < Self.pairingQuestionInterval {
            let retryAfter = Self.pairingQuestionInterval - (now - last)
            logger.info("Pairing not asked: another was asked less than a minute ago", metadata: [
                "phone": "\(name)", "retryAfter": "\(retryAfter)",
            ])
            return .tooSoon(retryAfter: retryAfter)
        }
        lastPairingAsked = now
        let answer = await ask(
            .init(question: "Pair phone \(name)? Code \(code)", tallLines: ["Pair phone " + name + "?", "Code " + code]),
            about: ["phone": "\(name)", "code": "\(code)"])
        switch answer {
        case .yes: return .allowed
        case .no: return .refused
        case .unanswered: return .unanswered
        case .withdrawn: return .withdrawn
        }
    }

    private func ask(_ question: DevicePrompt, about metadata: Logger.Metadata) async -> PromptAnswer {
        let deadline = clock.now.addingTimeInterval(settings.authorizationTimeout / .seconds(1))
        promptsAsked += 1
        var question = question
        question.number = promptsAsked
        let decision = await withCheckedContinuation { (answer: CheckedContinuation<PromptAnswer, Never>) in
            prompts.append(PendingPrompt(question: question, deadline: deadline, answer: answer))
            logger.notice("Asking on the device: \(question.question)", metadata: metadata)
            if let loopInput {
                loopInput.yield(.promptAdded)
            } else {
                // Driven step by step (tests, scenarios): show the prompt now.
                Task { await self.refresh() }
            }
        }
        return decision
    }

    /// Answers the oldest prompt with `gesture`: STOP pressed is no, STOP and SNOOZE held
    /// together yes; anything else, or any gesture in the quiet time after an alert, answers
    /// nothing. `false` if no prompt is waiting (the gesture is then the rest of the device's).
    func answerPrompt(with gesture: ButtonGesture) -> Bool {
        guard let prompt = prompts.first else { return false }
        let answer: PromptAnswer
        switch gesture {
        case .bothHeld: answer = .yes
        case .shortPress(.stop), .longPress(.stop): answer = .no
        case .shortPress(.snooze), .longPress(.snooze):
            logger.info("SNOOZE alone does not answer a question: hold STOP and SNOOZE together for yes", metadata: [
                "question": "\(prompt.question.question)",
            ])
            return true
        }
        if let quietUntil = questionsQuietUntil, clock.monotonicNow < quietUntil {
            logger.notice("Answer ignored: an alarm rang moments ago", metadata: [
                "question": "\(prompt.question.question)", "answer": "\(answer == .yes ? "yes" : "no")",
            ])
            return true
        }
        prompts.removeFirst()
        logger.notice("Answered on the device", metadata: [
            "question": "\(prompt.question.question)", "answer": "\(answer == .yes ? "yes" : "no")",
        ])
        prompt.answer.resume(returning: answer)
        return true
    }

    func expirePrompts() {
        let now = clock.now
        while let first = prompts.first, first.deadline <= now {
            prompts.removeFirst()
            logger.info("Nobody answered on the device", metadata: ["question": "\(first.question.question)"])
            first.answer.resume(returning: .unanswered)
        }
    }

    /// An alert withdraws every question (it takes the display, and the presses that follow are
    /// meant for it), and its end starts the quiet time in which gestures answer nothing.
    func noteAlerts(in snapshot: DeviceSnapshot) {
        if snapshot.alerting.isEmpty {
            if alertShown { questionsQuietUntil = clock.monotonicNow + Self.questionQuietAfterAlert }
            alertShown = false
            return
        }
        alertShown = true
        guard !prompts.isEmpty else { return }
        for prompt in prompts {
            logger.notice("Question withdrawn: an alarm is ringing", metadata: ["question": "\(prompt.question.question)"])
        }
        answerAllPrompts(.withdrawn)
    }

    /// Leaves every waiting question undecided, as when nobody answers: a service stopping does
    /// not keep its clients waiting for a press that will not come.
    public func dismissPrompts() {
        answerAllPrompts(.unanswered)
    }

    func answerAllPrompts(_ answer: PromptAnswer) {
        let pending = prompts
        prompts = []
        pending.forEach { $0.answer.resume(returning: answer) }
    }
}

/// The engine's ``AuthorizationPrompter``, answered by the person at the device through the
/// appliance. The engine is made before the appliance (the appliance needs it), so the prompter
/// is attached afterwards; until then, and after the appliance stops, nothing is decided.
///
/// ```swift
/// let prompter = DevicePrompter()
/// let runtime = try AlarmRuntime(..., authorizer: prompter, ...)
/// let appliance = Appliance(runtime: runtime, ...)
/// prompter.attach(appliance)
/// ```
public final class DevicePrompter: AuthorizationPrompter {
    private let appliance = Mutex<Appliance?>(nil)
    private let userName: @Sendable (ClientID) -> String

    /// `userName` names a client for the prompt (the daemon looks the uid up in the password
    /// database).
    public init(userName: @escaping @Sendable (ClientID) -> String = { "\($0)" }) {
        self.userName = userName
    }

    public func attach(_ appliance: Appliance) {
        self.appliance.withLock { $0 = appliance }
    }

    public func requestAuthorization(for client: ClientID) async -> AlarmManager.AuthorizationState {
        guard let appliance = appliance.withLock({ $0 }) else { return .notDetermined }
        return await appliance.requestAuthorization(for: client, named: userName(client))
    }
}

extension Appliance {
    /// `true` once the appliance's actor answers: a hang in it (a deadlock, a blocking call)
    /// never returns, which is what the systemd watchdog is for.
    public func isResponsive() -> Bool {
        true
    }

    /// What each part of the board is doing, for `alarmctl status`.
    public var partFaults: (sound: HardwareError?, display: HardwareError?, indicator: HardwareError?) {
        (soundFault, displayFault, indicatorFault)
    }
}
