import AlarmEngine
import AlarmHardware
import FoundationEssentials

extension ApplianceCore {
    /// Why the display last failed; cleared once it answers.
    var displayFault: HardwareError? { display.fault }
    /// Why the LED last failed; cleared once it shows a pattern.
    var indicatorFault: HardwareError? { indicator.fault }
    /// Whether the backlight is on, as last set.
    var isBacklightOn: Bool { screen.backlightOn ?? false }

    /// What the display must be given to show the last snapshot: nothing if it shows that
    /// already, or while a self-test holds it.
    mutating func refreshDisplay() -> [PartCommand] {
        guard selfTest?.part != .display, let snapshot = lastSnapshot else { return [] }
        let now = snapshot.now
        let showsNextAlarm = nextAlarmShownUntil.map { now < $0 } ?? false
        let prompt = questions.first?.prompt
        let content = ScreenRenderer.content(of: snapshot, showsNextAlarm: showsNextAlarm, prompting: prompt)
        if content != screen.content {
            screen.content = content
            screen.contentSince = now
        }
        let output = renderer.render(.init(
            snapshot: snapshot, showsNextAlarm: showsNextAlarm,
            soundFault: soundFault.map { "No sound: \($0.device)" }, contentSince: screen.contentSince, prompt: prompt,
            countdownHint: stopHintShownUntil.map { now < $0 } ?? false ? ScreenRenderer.holdStopHint : nil))
        screen.nextChange = output.nextChange
        let backlight = !snapshot.alerting.isEmpty || !questions.isEmpty || (backlightUntil.map { now < $0 } ?? false)
        let update = PartCommand.DisplayUpdate(
            defineGlyphs: !screen.glyphsLoaded,
            frame: output.frame == screen.shownFrame ? nil : output.frame,
            backlight: backlight == screen.backlightOn ? nil : backlight)
        guard update.defineGlyphs || update.frame != nil || update.backlight != nil else { return [] }
        return [.drawDisplay(update)]
    }

    /// Whether `date` is within the household's night hours, on the device's clock.
    func isNight(_ snapshot: DeviceSnapshot, at date: Date) -> Bool {
        guard let night = settings.nightHours else { return false }
        return night.contains(snapshot.timeZone.localDateTime(at: date).time)
    }

    /// The LED's pattern for the last snapshot, if it does not show it already (and no self-test
    /// holds it). Decided after the sound and the display: it shows whether they work.
    func refreshIndicator() -> [PartCommand] {
        guard selfTest?.part != .led, let snapshot = lastSnapshot else { return [] }
        let pattern = IndicatorPolicy.pattern(for: indicatorState(snapshot))
        return pattern == shownPattern ? [] : [.showPattern(pattern)]
    }

    func indicatorState(_ snapshot: DeviceSnapshot) -> IndicatorState {
        if let alert = snapshot.alerting.first { return .alerting(tint: alert.definition.tintColor) }
        let faulty = !sound.isWorking || !display.isWorking || !lightHealth.isWorking || snapshot.storage.displayText != nil
        // At night the LED shows nothing but a fault.
        if isNight(snapshot, at: snapshot.now) { return faulty ? .hardwareFault : .idle }
        if let countdown = snapshot.countdowns.first {
            if case .paused = countdown.phase { return .paused(tint: countdown.definition.tintColor) }
            return .countingDown(tint: countdown.definition.tintColor)
        }
        if faulty { return .hardwareFault }
        if !snapshot.missedAlarms.isEmpty { return .missedAlarm }
        return .idle
    }
}
