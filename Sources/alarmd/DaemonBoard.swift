import AlarmALSA
import AlarmAppliance
import AlarmBoard
import AlarmDaemon
import AlarmGPIO
import AlarmHardware
import AlarmSimulator
import AlarmTime
import Logging

/// The daemon's board: every part opened from the profile and kept even when it is missing at
/// start (the GPIO backends retry when a chip node appears in `/dev` and after a growing wait,
/// the display after a growing wait, the sound on each use), so a part plugged in later starts
/// working without a restart. Fakes stand in for every part only on the simulated board.
struct DaemonBoard: Sendable {
    let hardware: ApplianceHardware
    let buttons: GPIODButtonInput?
    let indicator: GPIODIndicator?
    let mixer: ALSAMixerVolume?
    /// Why the volume control the profile names did not open (the volume is then set in software).
    var mixerProblem: HardwareError?
    /// Why the sound device did not open when the daemon started (`nil`: it did, or the board is
    /// simulated); the appliance shows it until a playback works.
    let soundProblemAtStart: HardwareError?

    static func open(
        _ profile: BoardProfile, clock: any WallClock, logger: Logger
    ) async -> DaemonBoard {
        guard !profile.simulated, let gpio = profile.gpio, let display = profile.display else {
            logger.notice("Simulated board: no hardware, fakes for every part", metadata: ["board": "\(profile.name)"])
            let hardware = ApplianceHardware(
                buttons: FakeButtonInput(clock: clock), indicator: FakeIndicator(),
                audio: FakeAudioOutput(clock: clock), display: FakeCharacterDisplay(size: profile.display?.size ?? .sixteenByTwo))
            return DaemonBoard(hardware: hardware, buttons: nil, indicator: nil, mixer: nil, soundProblemAtStart: nil)
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
        var mixer: ALSAMixerVolume?
        var mixerProblem: HardwareError?
        var sound: any AudioOutput = audio
        if let control = profile.sound.mixer {
            let volume = ALSAMixerVolume(card: profile.sound.card, control: control)
            mixer = volume
            // Each sound sets the card to its volume and plays the crescendo below it in software,
            // so the household's volume (read after this, or changed on the page later) is the
            // card's. Checked now so a wrong name shows at start, not at the first alarm.
            sound = HardwareVolumeAudioOutput(wrapping: audio, volume: volume) { problem in
                if let problem {
                    logger.warning("Sound card volume control cannot be set; the volume is set in software", metadata: [
                        "error": "\(problem)",
                    ])
                } else {
                    logger.notice("Sound card volume control works again", metadata: ["mixer": "\(control)"])
                }
            }
            do {
                let range = try volume.range()
                logger.info("Alarm volume is set on the sound card's control", metadata: [
                    "mixer": "\(control)", "card": "\(volume.controlDevice)", "range.dB": "\(range)",
                ])
            } catch {
                mixerProblem = error
                logger.warning("Sound card volume control not available; the volume is set in software until it is", metadata: [
                    "error": "\(error)",
                ])
            }
        }
        let hardware = ApplianceHardware(
            buttons: buttons ?? AbsentButtonInput() as any ButtonInput,
            indicator: indicator ?? AbsentIndicator() as any Indicator,
            audio: sound, display: BoardParts.openDisplay(display))
        return DaemonBoard(
            hardware: hardware, buttons: buttons, indicator: indicator, mixer: mixer, mixerProblem: mixerProblem,
            soundProblemAtStart: problemAtStart)
    }

    /// Releases the GPIO lines (the LED is left off).
    func close() async {
        await buttons?.close()
        await indicator?.close()
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
