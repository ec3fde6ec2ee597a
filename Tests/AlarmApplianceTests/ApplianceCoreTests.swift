import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import FoundationEssentials
import Testing

@testable import AlarmAppliance
@testable import AlarmEngine

/// ``ApplianceCore`` on its own: snapshots, events and instants in, commands out. No actor, no
/// clock, no parts.
@Suite struct ApplianceCoreTests {
    static let seven = Scene.monday(7, 0)

    static func at(_ wall: Date, monotonic seconds: Double = 100) -> ApplianceMoment {
        ApplianceMoment(wall: wall, monotonic: .seconds(seconds))
    }

    static func ringing(sound: AlertSound = .default) -> (AlarmRecord, DeviceSnapshot) {
        var alarm = Scene.record(Scene.alerting(at: 7, 0, since: seven))
        alarm.definition.sound = sound
        return (alarm, Scene.snapshot(now: seven, alerting: [alarm]))
    }

    static func core(settings: ApplianceSettings = ApplianceSettings()) -> ApplianceCore {
        ApplianceCore(settings: settings, displaySize: .sixteenByTwo)
    }

    /// Carries out `commands` as a device whose parts all work, as the actor would.
    static func perform(_ commands: [PartCommand], on core: inout ApplianceCore, at moment: ApplianceMoment) {
        var pending = Array(commands.reversed())
        while let command = pending.popLast() {
            pending += core.record(.done, of: command, at: moment).reversed()
        }
    }

    @Test func aDueAlarmsSoundIsTheFirstCommand() throws {
        var core = Self.core()
        let (alarm, snapshot) = Self.ringing()
        let commands = core.refreshSound(with: snapshot, at: Self.at(Self.seven))
        let first = try #require(commands.first)
        guard case .playAlert(let play) = first else {
            Issue.record("first command: \(first)")
            return
        }
        #expect(play.alarm == alarm && play.source == .builtInTone && play.fallbacks.isEmpty)
        #expect(play.gain == ApplianceSettings().gainRamp)
    }

    @Test func aHouseholdSoundRingsFromTheHouseholdDirectoryAndAnyOtherNameFromThePackages() throws {
        var settings = ApplianceSettings()
        settings.soundsDirectory = "/usr/share/alarmd/sounds"
        settings.householdSoundsDirectory = "/var/lib/alarmd/sounds"
        settings.householdSounds = ["Dawn chorus.flac"]
        let now = Self.at(Self.seven)
        for (name, path) in [
            ("Dawn chorus.flac", "/var/lib/alarmd/sounds/Dawn chorus.flac"), ("birds.wav", "/usr/share/alarmd/sounds/birds.wav"),
        ] {
            var core = Self.core(settings: settings)
            let (_, snapshot) = Self.ringing(sound: .named(name))
            guard case .playAlert(let play)? = core.refreshSound(with: snapshot, at: now).first else {
                Issue.record("\(name) did not play")
                continue
            }
            #expect(play.source == .file(path) && play.fallbacks == [.builtInTone])
        }
    }

    @Test func anAlarmWithoutItsOwnSoundRingsWithTheHouseholdsDefault() throws {
        var settings = ApplianceSettings()
        settings.householdSoundsDirectory = "/var/lib/alarmd/sounds"
        settings.householdSounds = ["Dawn chorus.flac"]
        settings.defaultSound = "Dawn chorus.flac"
        var core = Self.core(settings: settings)
        let (_, snapshot) = Self.ringing(sound: .default)
        guard case .playAlert(let play)? = core.refreshSound(with: snapshot, at: Self.at(Self.seven)).first else {
            Issue.record("nothing played")
            return
        }
        #expect(play.source == .file("/var/lib/alarmd/sounds/Dawn chorus.flac") && play.fallbacks == [.builtInTone])
        settings.defaultSound = nil
        var toneCore = Self.core(settings: settings)
        guard case .playAlert(let tone)? = toneCore.refreshSound(with: snapshot, at: Self.at(Self.seven)).first else {
            Issue.record("nothing played")
            return
        }
        #expect(tone.source == .builtInTone)
    }

    @Test func aNamedSoundThatFailsFallsBackToTheToneAtOnce() throws {
        var settings = ApplianceSettings()
        settings.soundsDirectory = "/sounds"
        var core = Self.core(settings: settings)
        let (_, snapshot) = Self.ringing(sound: .named("birds.wav"))
        let now = Self.at(Self.seven)
        let play = try #require(core.refreshSound(with: snapshot, at: now).first)
        let error = HardwareError(.busy, device: "hw:0")
        let next = core.record(.failed(error), of: play, at: now)
        guard case .playAlert(let tone) = next.last else {
            Issue.record("after a failed named sound: \(next)")
            return
        }
        #expect(tone.source == .builtInTone && tone.namedSoundFailed && tone.previousError == error)
        #expect(core.record(.done, of: .playAlert(tone), at: now).count == 1, "the recovery is logged")
        #expect(core.soundState.playingAlarm == snapshot.alerting[0].key)
        #expect(core.refreshSound(with: snapshot, at: now).isEmpty, "playing already")
    }

    @Test func aSoundFileThatCannotPlayIsRecordedAndNotedWhileTheToneRings() throws {
        var settings = ApplianceSettings()
        settings.soundsDirectory = "/sounds"
        var core = Self.core(settings: settings)
        let (alarm, snapshot) = Self.ringing(sound: .named("chime.mp3"))
        let now = Self.at(Self.seven)
        let play = try #require(core.refreshSound(with: snapshot, at: now).first)
        // The file, not the device: the speaker is fine, the history and the status say which file.
        let next = core.record(.failed(HardwareError(.io, device: "/sounds/chime.mp3")), of: play, at: now)
        #expect(next.contains(.recordSoundFallback(alarm.key, sound: "chime.mp3")))
        guard case .playAlert(let tone) = next.last else {
            Issue.record("after a failed file: \(next)")
            return
        }
        #expect(tone.source == .builtInTone)
        _ = core.record(.done, of: .playAlert(tone), at: now)
        #expect(core.soundFault == nil)
        #expect(core.soundFallbackNote == "the built-in tone rings: /sounds/chime.mp3 could not play")

        // The alert ends: nothing more to say.
        _ = core.refreshSound(with: Scene.snapshot(now: Self.seven.addingTimeInterval(30)), at: Self.at(Self.seven.addingTimeInterval(30)))
        #expect(core.soundFallbackNote == nil)
    }

    @Test func aFileThatStopsDecodingWhilePlayingGivesWayToTheToneWithoutAFault() throws {
        var settings = ApplianceSettings()
        settings.soundsDirectory = "/sounds"
        var core = Self.core(settings: settings)
        let (alarm, snapshot) = Self.ringing(sound: .named("chime.mp3"))
        let now = Self.at(Self.seven)
        Self.perform(core.refreshSound(with: snapshot, at: now), on: &core, at: now)
        let failed = core.soundFailed(HardwareError(.io, device: "/sounds/chime.mp3"))
        let commands = try #require(failed)
        #expect(commands.contains(.recordSoundFallback(alarm.key, sound: "chime.mp3")))
        #expect(core.soundFault == nil, "the speaker works")
        guard case .playAlert(let tone)? = core.refreshSound(with: snapshot, at: now).first else {
            Issue.record("the tone does not follow")
            return
        }
        #expect(tone.source == .builtInTone)
    }

    @Test func aFortyFiveMinuteFadeRisesEvenlyInDecibelsAndAPlayMidwayContinuesIt() throws {
        var settings = ApplianceSettings()
        settings.crescendo = .seconds(45 * 60)
        let core = Self.core(settings: settings)
        let (alarm, _) = Self.ringing()
        // The ramp as played from the alert's start: -36 dB to -6 dB, 30 dB in 45 minutes.
        #expect(settings.gainRamp == GainRamp(from: -36, to: -6, over: .seconds(2_700)))
        for (minutes, decibels) in [(0.0, -36.0), (15, -26), (22.5, -21), (45, -6), (60, -6)] {
            #expect(abs(settings.gainRamp.decibels(after: .seconds(minutes * 60)) - decibels) < 1e-9, "at \(minutes) min")
        }
        // A play that starts 22.5 minutes into the alert (a second alarm, a retry) goes on from -21 dB.
        let midway = Scene.snapshot(now: Self.seven.addingTimeInterval(22.5 * 60), alerting: [alarm])
        #expect(core.gainRamp(in: midway) == GainRamp(from: -21, to: -6, over: .seconds(22.5 * 60)))
    }

    @Test func anAlarmsOwnWakePlaysItsFadeToItsVolumeAndTheRestIsTheHouseholds() throws {
        var settings = ApplianceSettings()
        settings.crescendo = .seconds(60)
        settings.volume = -6
        let core = Self.core(settings: settings)
        var (alarm, _) = Self.ringing()
        alarm.wake = AlarmWake(crescendoSeconds: 1_200, volumeDB: -16)
        let start = Scene.snapshot(now: Self.seven, alerting: [alarm])
        #expect(core.gainRamp(in: start) == GainRamp(from: -36, to: -16, over: .seconds(1_200)))
        // Ten minutes in, halfway up its own 20-minute fade: -26 dB, as even in dB as the household's.
        let halfway = Scene.snapshot(now: Self.seven.addingTimeInterval(600), alerting: [alarm])
        #expect(core.gainRamp(in: halfway) == GainRamp(from: -26, to: -16, over: .seconds(600)))

        alarm.wake = AlarmWake(volumeDB: -40)
        let quiet = Scene.snapshot(now: Self.seven, alerting: [alarm])
        #expect(core.gainRamp(in: quiet) == GainRamp(from: -40, to: -40, over: .seconds(60)),
                "below the floor: no ramp down to it, the household's fade-in length")
        alarm.wake = AlarmWake(crescendoSeconds: 0)
        #expect(core.gainRamp(in: Scene.snapshot(now: Self.seven, alerting: [alarm])) == .constant(-6), "no fade: full at once")
    }

    @Test func aSecondQuieterAlarmNeverTurnsDownOneAlreadyRinging() throws {
        var settings = ApplianceSettings()
        settings.crescendo = .seconds(60)
        settings.volume = -6
        let core = Self.core(settings: settings)
        let (ringing, _) = Self.ringing()
        var quiet = Scene.record(Scene.alerting(at: 7, 5, since: Self.seven.addingTimeInterval(300)), sequence: 2)
        quiet.wake = AlarmWake(crescendoSeconds: 1_200, volumeDB: -43)
        // The quiet one presented first (it began last): the household's loud, short ramp still rules.
        let both = Scene.snapshot(now: Self.seven.addingTimeInterval(300), alerting: [quiet, ringing])
        #expect(core.gainRamp(in: both) == .constant(-6))
    }

    @Test func nothingPlayingRetriesAfterTheIntervalAndShowsTheFault() throws {
        var core = Self.core()
        let (_, snapshot) = Self.ringing()
        let now = Self.at(Self.seven)
        let play = try #require(core.refreshSound(with: snapshot, at: now).first)
        let error = HardwareError(.deviceUnavailable, device: "hw:0")
        _ = core.record(.failed(error), of: play, at: now)
        #expect(core.soundFault == error)
        #expect(core.nextWake(at: now) == Self.seven.addingTimeInterval(10))
        #expect(core.refreshSound(with: snapshot, at: now).isEmpty, "not before the retry")
        let later = Scene.snapshot(now: Self.seven.addingTimeInterval(10), alerting: snapshot.alerting)
        #expect(core.refreshSound(with: later, at: Self.at(later.now)).count == 1)
    }

    @Test func stopOnAnAlertSilencesBeforeTheEngineHearsOfIt() throws {
        var core = Self.core()
        let (alarm, snapshot) = Self.ringing()
        let now = Self.at(Self.seven)
        Self.perform(core.refreshSound(with: snapshot, at: now), on: &core, at: now)
        let commands = core.buttonEvent(ButtonEvent(.stop, .pressed, at: now.monotonic), at: now)
        #expect(commands == [.stopSound, .pressAlarm(.stop, on: alarm, because: "STOP pressed")])
        let release = core.buttonEvent(ButtonEvent(.stop, .released, at: now.monotonic + .milliseconds(150)), at: now)
        #expect(release.isEmpty, "the rest of that press does nothing more")
    }

    @Test func anAlertWithdrawsAQuestionAndItsEndKeepsPressesFromAnswering() throws {
        var core = Self.core()
        let idle = Scene.snapshot(now: Self.seven.addingTimeInterval(-60))
        let before = Self.at(idle.now, monotonic: 40)
        core.observe(idle)
        let first = core.ask(DevicePrompt(question: "Pair phone?", tallLines: []), at: before)
        let (_, ringing) = Self.ringing()
        #expect(core.refreshSound(with: ringing, at: Self.at(Self.seven)).contains(.answerPrompt(number: first, .withdrawn)))

        let after = Self.at(Self.seven.addingTimeInterval(30), monotonic: 130)
        _ = core.refreshSound(with: Scene.snapshot(now: after.wall), at: after)
        let second = core.ask(DevicePrompt(question: "Pair phone?", tallLines: []), at: after)
        _ = core.buttonEvent(ButtonEvent(.stop, .pressed, at: .seconds(131)), at: after)
        let quiet = core.buttonEvent(ButtonEvent(.stop, .released, at: .seconds(131.2)), at: after)
        #expect(!quiet.contains(.answerPrompt(number: second, .no)), "5 s after the alert: not an answer")
        let later = Self.at(after.wall.addingTimeInterval(15), monotonic: 145)
        _ = core.buttonEvent(ButtonEvent(.stop, .pressed, at: .seconds(145)), at: later)
        let answered = core.buttonEvent(ButtonEvent(.stop, .released, at: .seconds(145.2)), at: later)
        #expect(answered.contains(.answerPrompt(number: second, .no)))
    }

    @Test func aHeldButtonWakesTheCoreAtItsLongPress() {
        var core = Self.core()
        let countdown = Scene.record(Scene.countingDown(remaining: 300, now: Self.seven))
        let snapshot = Scene.snapshot(now: Self.seven, countdowns: [countdown])
        let now = Self.at(Self.seven)
        core.observe(snapshot)
        _ = core.buttonEvent(ButtonEvent(.stop, .pressed, at: now.monotonic), at: now)
        let held = Self.at(Self.seven.addingTimeInterval(1.5), monotonic: 101.5)
        #expect(core.nextWake(at: held) == Self.seven.addingTimeInterval(2))
        let due = Self.at(Self.seven.addingTimeInterval(2), monotonic: 102)
        #expect(core.beginRefresh(at: due) == [.pressAlarm(.stop, on: countdown, because: "STOP held")])
    }

    @Test func aDisplayThatFailsIsRetriedWithBackoffAndTheLEDShowsIt() throws {
        var core = Self.core()
        let idle = Scene.snapshot(now: Self.seven)
        let now = Self.at(Self.seven)
        _ = core.refreshSound(with: idle, at: now)
        let draw = try #require(core.refreshDisplay().first)
        guard case .drawDisplay(let update) = draw else {
            Issue.record("not a draw: \(draw)")
            return
        }
        #expect(update.defineGlyphs && update.frame != nil && update.backlight == false)
        let error = HardwareError(.noAcknowledge, device: "/dev/i2c-1@0x27")
        #expect(core.record(.failed(error), of: draw, at: now).count == 1, "a new fault is logged")
        #expect(core.nextWake(at: now) == Self.seven.addingTimeInterval(10))
        #expect(core.refreshIndicator() == [.showPattern(IndicatorPolicy.pattern(for: .hardwareFault))])
        #expect(core.record(.failed(error), of: draw, at: now).isEmpty, "logged once")
        #expect(core.nextWake(at: now) == Self.seven.addingTimeInterval(20), "the wait doubles")
    }

    @Test func shutdownLeavesEveryPartDarkAndQuestionsUndecided() {
        var core = Self.core()
        let number = core.ask(DevicePrompt(question: "Allow bob?", tallLines: []), at: Self.at(Self.seven))
        let commands = core.shutdown()
        #expect(commands.first == .answerPrompt(number: number, .unanswered))
        #expect(commands.contains(.stopSound) && commands.contains(.showPattern(.off)))
        #expect(commands.last == .drawDisplay(.init(defineGlyphs: false, frame: DisplayFrame(size: .sixteenByTwo), backlight: false)))
    }
}
