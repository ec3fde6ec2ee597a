import AlarmALSA
import AlarmAppliance
import AlarmBoard
import AlarmDaemon
import AlarmGPIO
import AlarmHardware
import AlarmPWM
import AlarmSimulator
import AlarmTime
import Logging

/// The daemon's board: every part opened from the profile and kept even when it is missing at
/// start (the GPIO backends retry when a chip node appears in `/dev` and after a growing wait,
/// the display after a growing wait, the sound on each use), so a part plugged in later starts
/// working without a restart. Fakes stand in for every part only on the simulated board.
struct DaemonBoard: DeviceBoard {
    let hardware: ApplianceHardware
    let buttons: GPIODButtonInput?
    let indicator: GPIODIndicator?
    let light: SysfsPWMLight?
    let mixer: ALSAMixerVolume?
    /// Why the volume control the profile names did not open (the volume is then set in software).
    var mixerProblem: HardwareError?
    /// Why the sound device did not open when the daemon started (`nil`: it did, or the board is
    /// simulated); the appliance shows it until a playback works.
    let soundProblemAtStart: HardwareError?
    /// The dB range of the volume control the alarm volume is set on, as read at start.
    var volumeControlRange: ClosedRange<Double>?

    /// The simulated board: `hardware`'s parts are fakes (the simulator's, or the simulated
    /// profile's), with no lines to watch or release.
    static func simulated(_ hardware: ApplianceHardware) -> DaemonBoard {
        DaemonBoard(hardware: hardware, buttons: nil, indicator: nil, light: nil, mixer: nil, soundProblemAtStart: nil)
    }

    /// Opens `profile`'s parts: fakes on a simulated profile, the backends on a real one. A
    /// volume control is set to `volume` (the household's) as soon as it opens; with `nil` (a
    /// self-test beside no service) the card's control is left as it is and not used.
    static func open(
        _ profile: BoardProfile, volume: Double?, clock: any WallClock, logger: Logger
    ) async -> DaemonBoard {
        guard !profile.simulated, let gpio = profile.gpio, let display = profile.display else {
            logger.notice("Simulated board: no hardware, fakes for every part", metadata: ["board": "\(profile.name)"])
            return simulated(ApplianceHardware(
                buttons: FakeButtonInput(clock: clock), indicator: FakeIndicator(),
                audio: FakeAudioOutput(clock: clock), display: FakeCharacterDisplay(size: profile.display?.size ?? .sixteenByTwo),
                light: profile.light.map { _ in FakeLight() }))
        }
        var buttons: GPIODButtonInput?
        var indicator: GPIODIndicator?
        do {
            buttons = try GPIODButtonInput(configuration: BoardParts.buttonConfiguration(gpio))
        } catch {
            logger.error("Buttons cannot be watched (no thread or eventfd)", metadata: ["error": "\(error)"])
        }
        do {
            indicator = try GPIODIndicator(configuration: BoardParts.indicatorConfiguration(gpio))
        } catch {
            logger.error("LED cannot be driven (no thread or eventfd)", metadata: ["error": "\(error)"])
        }
        let audio = BoardParts.alsaOutput(device: profile.sound.device, logger: logger)
        let problemAtStart = audio.probe()
        if let problemAtStart {
            logger.error("Sound device not available at start; alarms alert on the LED and display until it is", metadata: [
                "error": "\(problemAtStart)",
            ])
        }
        let sound = CardSound.open(profile.sound, wrapping: audio, volume: volume, logger: logger)
        var light: SysfsPWMLight?
        if let profileLight = profile.light { light = await BoardParts.openLight(profileLight, logger: logger) }
        let hardware = ApplianceHardware(
            buttons: buttons ?? AbsentButtonInput() as any ButtonInput,
            indicator: indicator ?? AbsentIndicator() as any Indicator,
            audio: sound.output, display: BoardParts.openDisplay(display), light: light)
        return DaemonBoard(
            hardware: hardware, buttons: buttons, indicator: indicator, light: light, mixer: sound.mixer,
            mixerProblem: sound.mixerProblem, soundProblemAtStart: problemAtStart, volumeControlRange: sound.range)
    }

    /// Releases the GPIO lines (the LED is left off) and the light's PWM channel (turned off).
    func close() async {
        await buttons?.close()
        await indicator?.close()
        light?.close()
    }
}

/// The board's sound: the ALSA output, behind the card's own volume control when the profile
/// names one.
struct CardSound {
    let output: any AudioOutput
    let mixer: ALSAMixerVolume?
    /// Why the volume control did not answer at start.
    let mixerProblem: HardwareError?
    /// The control's dB range when the alarm volume is set on it and it answered at start.
    var range: ClosedRange<Double>?

    /// Opens the volume control the profile names, if any, and sets it to `volume`; with `nil`
    /// only checks that it answers, and plays `audio` as it is.
    static func open(_ profile: BoardProfile.Sound, wrapping audio: any AudioOutput, volume: Double?, logger: Logger) -> CardSound {
        guard let control = profile.mixer else { return CardSound(output: audio, mixer: nil, mixerProblem: nil) }
        let mixer = ALSAMixerVolume(card: profile.card, control: control)
        guard let volume else {
            do {
                _ = try mixer.range()
                return CardSound(output: audio, mixer: mixer, mixerProblem: nil)
            } catch {
                return CardSound(output: audio, mixer: nil, mixerProblem: error)
            }
        }
        // Each sound sets the card to its volume and plays the crescendo below it in software,
        // so the household's volume (given here, or changed on the page later) is the card's.
        let output = HardwareVolumeAudioOutput(wrapping: audio, volume: mixer) { problem in
            if let problem {
                logger.warning("Sound card volume control cannot be set; the volume is set in software", metadata: [
                    "error": "\(problem)",
                ])
            } else {
                logger.notice("Sound card volume control works again", metadata: ["mixer": "\(control)"])
            }
        }
        // Checked now so a wrong name shows at start, not at the first alarm.
        do {
            let range = try mixer.range()
            logger.info("Alarm volume is set on the sound card's control", metadata: [
                "mixer": "\(control)", "card": "\(mixer.controlDevice)", "range.dB": "\(range)",
            ])
            output.setCard(to: volume)
            return CardSound(output: output, mixer: mixer, mixerProblem: nil, range: range)
        } catch {
            logger.warning("Sound card volume control not available; the volume is set in software until it is", metadata: [
                "error": "\(error)",
            ])
            return CardSound(output: output, mixer: mixer, mixerProblem: error)
        }
    }
}

extension DaemonBoard {
    /// The buttons and the volume control as the daemon's `selfTest` reports them: the buttons
    /// are held and listened to by the appliance all the time, so their lines' state is what a
    /// check beside it can honestly say.
    func selfTestBoard(_ profile: BoardProfile) -> DaemonOperations.SelfTestBoard {
        let buttons = buttons
        let mixer = mixer
        let mixerProblem = mixerProblem
        let named = profile.sound.mixer != nil
        let simulated = profile.simulated
        return DaemonOperations.SelfTestBoard(
            buttons: {
                guard let buttons else {
                    return simulated
                        ? .init(working: true, detail: "simulated: the simulator's keys press them")
                        : .init(working: false, detail: "alarmd could not watch the buttons (no thread or eventfd: see its journal)")
                }
                switch buttons.status {
                case .ready:
                    return .init(working: true, detail: "lines held by alarmd and working; a press on the clock lights its display")
                case .starting:
                    return .init(working: false, detail: "alarmd is still opening the lines")
                case .failed(let error):
                    return .init(working: false, detail: "\(error)", fault: error)
                case .closed:
                    return .init(working: false, detail: "alarmd has closed the lines (it is stopping)")
                }
            },
            mixer: {
                guard named else { return nil }
                guard let mixer else {
                    return .failure(mixerProblem ?? HardwareError(.deviceUnavailable, device: "mixer"))
                }
                do throws(HardwareError) {
                    return .success(try mixer.range())
                } catch {
                    return .failure(error)
                }
            })
    }
}
