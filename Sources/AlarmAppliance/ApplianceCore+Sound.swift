import AlarmEngine
import AlarmHardware
import AlarmModel
import FoundationEssentials

extension ApplianceCore {
    /// Why the last attempt to play failed; cleared by the next sound that plays.
    var soundFault: HardwareError? { sound.fault }

    /// Whether the output is free for a tone of the person's own (a volume sample, a self-test):
    /// no alert has it.
    var isSoundQuiet: Bool {
        if case .quiet = soundState { return true }
        return false
    }

    /// A tone outside an alert started: whatever was prepared for the next alert is gone, so it is
    /// prepared again. `provesSound`: a fault shown for the sound is cleared.
    mutating func toneStarted(provesSound: Bool) {
        soundState = .silent
        if provesSound { sound.recordSuccess() }
    }

    /// A sample began to play while an alert began: it may have taken the alert's place on the
    /// device, so the alert's own sound is played again at the next refresh.
    mutating func sampleOverlappedAlert() {
        if case .alert(let alarm, _, let failed) = soundState { soundState = .alert(alarm: alarm, source: nil, namedSoundFailed: failed) }
    }

    /// The sound device was found missing while nothing plays (a probe at start): shown at once
    /// rather than only when an alarm fails to play. `false` while an alert plays (the alert's
    /// own attempts say how the sound is).
    mutating func soundUnavailable(_ error: HardwareError) -> Bool {
        guard soundState.source == nil else { return false }
        sound.recordFault(error)
        return true
    }

    /// A failure that ended playback (the device went away mid-alert): the alert goes on silent
    /// and the sound is tried again at the next refresh (the built-in tone if the named sound
    /// failed). `nil` if no alert was playing.
    mutating func soundFailed(_ error: HardwareError) -> [PartCommand]? {
        guard case .alert(let alarm, let source?, _) = soundState else { return nil }
        soundState.soundStopped(namedSoundFailed: source.isFile)
        var commands: [PartCommand] = [.log(.error, "Alarm sound failed while playing", [
            "alarm.id": "\(alarm.id)", "client": "\(alarm.owner)", "sound": "\(source)", "error": "\(error)",
        ])]
        if case .file(let path) = source, error.device == path {
            // The file stopped decoding, not the device: the speaker works, the tone follows.
            commands += fileFellBack(alarm, path: path)
        } else {
            sound.recordFault(error)
        }
        return commands
    }

    /// The alarm's own sound file could not play: the status says so while it alerts, and the
    /// history keeps it.
    mutating func fileFellBack(_ alarm: AlarmKey, path: String) -> [PartCommand] {
        failedSoundPath = path
        return [.recordSoundFallback(alarm, sound: path.split(separator: "/").last.map(String.init) ?? path)]
    }

    /// What the status says of the sound beside its health: the file an alerting alarm could not
    /// play, if any.
    var soundFallbackNote: String? {
        failedSoundPath.map { "the built-in tone rings: \($0) could not play" }
    }

    /// Stops the sound at once, ahead of the engine's durable write; the next refresh starts it
    /// again if the alarm turns out to be still alerting.
    mutating func silence() -> [PartCommand] {
        guard soundState.source != nil else { return [] }
        soundState.soundStopped()
        return [.stopSound]
    }

    mutating func updateSound(_ snapshot: DeviceSnapshot) -> [PartCommand] {
        guard let presented = snapshot.alerting.first else {
            var commands: [PartCommand] = []
            if case .alert(_, let source, _) = soundState {
                if source != nil { commands.append(.stopSound) }
                // The next alert tries its named sound again (a busy device may be free by then).
                soundState = .silent
                failedSoundPath = nil
            }
            sound.cancelRetry()
            return commands
        }
        if soundState.playingAlarm == presented.key { return [] }
        if soundState.source == nil, let retryAt = sound.retryAt, snapshot.now < retryAt { return [] }
        let sources = soundSources(for: presented)
        return [.playAlert(.init(
            alarm: presented, source: sources[0], fallbacks: Array(sources.dropFirst()), gain: gainRamp(in: snapshot),
            namedSoundFailed: soundState.namedSoundFailed(for: presented.key), previousError: nil))]
    }

    /// What an alert of `alarm` tries to play, in order: its sound (its own, else the
    /// household's default; unless that already failed for it), then the built-in tone.
    func soundSources(for alarm: AlarmRecord) -> [SoundSource] {
        var sources: [SoundSource] = []
        let name: String? = switch alarm.definition.sound {
        case .named(let name): name
        default: settings.defaultSound
        }
        if let name, !soundState.namedSoundFailed(for: alarm.key) {
            sources.append(.file(settings.soundPath(named: name)))
        }
        sources.append(.builtInTone)
        return sources
    }

    mutating func alertPlayed(_ play: PartCommand.AlertPlay) -> [PartCommand] {
        soundState = .alert(alarm: play.alarm.key, source: play.source, namedSoundFailed: play.namedSoundFailed)
        let recovered = !sound.isWorking || play.previousError != nil
        sound.recordSuccess()
        guard recovered else { return [] }
        return [.log(.notice, "Alarm sound playing", ["alarm.id": "\(play.alarm.id)", "sound": "\(play.source)"])]
    }

    /// Tries the next source; with none left, the alert goes on with LED and display only and
    /// playing is retried at a fixed interval: the person is waiting for it.
    mutating func alertDidNotPlay(_ play: PartCommand.AlertPlay, error: HardwareError, at moment: ApplianceMoment) -> [PartCommand] {
        let namedSoundFailed = play.namedSoundFailed || play.source.isFile
        var commands: [PartCommand] = [.log(.warning, "Alarm sound could not play", [
            "alarm.id": "\(play.alarm.id)", "sound": "\(play.source)", "error": "\(error)",
        ])]
        if case .file(let path) = play.source, error.device == path { commands += fileFellBack(play.alarm.key, path: path) }
        if let next = play.fallbacks.first {
            var retry = play
            retry.source = next
            retry.fallbacks.removeFirst()
            retry.namedSoundFailed = namedSoundFailed
            retry.previousError = error
            return commands + [.playAlert(retry)]
        }
        soundState = .alert(alarm: play.alarm.key, source: nil, namedSoundFailed: namedSoundFailed)
        if sound.isWorking {
            commands.append(.log(.error, "No sound for the alarm: alerting with the LED and display only; retrying", [
                "alarm.id": "\(play.alarm.id)", "retry.seconds": "\(settings.soundRetryInterval)",
            ]))
        }
        let retry = RetryBackoff(first: settings.soundRetryInterval, limit: settings.soundRetryInterval)
        sound.recordFailure(error, at: moment.wall, backoff: retry)
        return commands
    }

    /// The crescendo of the alerting alarms (each one's ``AlarmRecord/wake``, else the
    /// household's): the loudest volume and the shortest fade of them, so a second, quieter alarm
    /// never turns down one already ringing; continued from when the first of them began, so a
    /// second alarm or a retry after a fault does not start quiet again.
    func gainRamp(in snapshot: DeviceSnapshot) -> GainRamp {
        let ramps = snapshot.alerting.map { settings.gainRamp(for: $0.wake) }
        let loudest = ramps.map(\.target).max() ?? settings.volume
        let shortest = ramps.map(\.duration).min() ?? settings.crescendo
        let ramp = GainRamp(from: min(settings.crescendoStart, loudest), to: loudest, over: shortest)
        let since = snapshot.alerting.compactMap { record -> Date? in
            if case .alerting(let alerting) = record.phase { return alerting.since }
            return nil
        }.min() ?? snapshot.now
        let elapsed = Duration.seconds(max(snapshot.now.timeIntervalSince(since), 0))
        guard elapsed < ramp.duration else { return .constant(ramp.target) }
        return GainRamp(from: ramp.decibels(after: elapsed), to: ramp.target, over: ramp.duration - elapsed)
    }

    /// Shortly before an alert is due (``ApplianceSettings/soundPreparationLead``), has the sound
    /// output load the alarm's sound and open the device, so the alert is heard the moment it
    /// begins rather than after the device opened (tens of milliseconds on a slow board). Nothing
    /// is prepared while something plays. Sets its own next wake-up (``SoundState/prepareAt``).
    mutating func prepareSoundIfDue(_ snapshot: DeviceSnapshot) -> [PartCommand] {
        guard case .quiet(let prepared, _) = soundState else { return [] }
        soundState = .quiet(prepared: prepared, prepareAt: nil)
        let lead = settings.soundPreparationLead
        guard lead > .zero, snapshot.alerting.isEmpty, let upcoming = Self.upcomingAlert(in: snapshot) else { return [] }
        let alert = SoundState.PreparedAlert(alarm: upcoming.record.key, at: upcoming.at)
        if prepared == alert { return [] }
        let from = upcoming.at.addingTimeInterval(-(lead / .seconds(1)))
        guard snapshot.now >= from else {
            soundState = .quiet(prepared: prepared, prepareAt: from)
            return []
        }
        let left = upcoming.at.timeIntervalSince(snapshot.now)
        guard left > 0 else { return [] }
        soundState = .quiet(prepared: alert, prepareAt: nil)
        // Held past the instant, for an engine that wakes a little late; released unused after that.
        return [.prepareSound(soundSources(for: upcoming.record)[0], for: .seconds(left) + lead)]
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
}
