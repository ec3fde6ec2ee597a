import AlarmHardware
import AlarmModel

/// How the appliance behaves: the knobs a person or a packager sets (the daemon reads them from
/// its configuration file). Engine policies (grace, auto-silence) live in `EnginePolicy`.
public struct ApplianceSettings: Hashable, Sendable {
    /// The alarm volume the crescendo reaches, in dB of full scale (0 is full scale).
    public var volume: Double = -6
    /// Where the crescendo starts, in dB of full scale: audible in a quiet bedroom, not a shock.
    public var crescendoStart: Double = -36
    /// How long the crescendo takes to reach ``volume``; zero starts at full volume.
    public var crescendo: Duration = .seconds(30)
    /// Where the package's `.named` sounds are (a name is a plain file name in this directory).
    public var soundsDirectory: String = "/usr/share/alarmd/sounds"
    /// Where the household's own sounds are kept (added from the page or alarmctl), if anywhere.
    public var householdSoundsDirectory: String?
    /// The names ``householdSoundsDirectory`` holds: a name found there rings from there.
    public var householdSounds: Set<String> = []
    /// The sound an alarm that names none rings with (the household's choice); `nil`: the
    /// built-in tone.
    public var defaultSound: String?
    /// How long before an alert the sound device is opened and the sound loaded, so the alert is
    /// heard at its instant; zero opens the device only when the alert begins.
    public var soundPreparationLead: Duration = .seconds(2)
    /// How often playback is retried while an alert has no working sound.
    public var soundRetryInterval: Duration = .seconds(10)
    /// How long after a display or LED stopped answering it is first tried again; the wait
    /// doubles after each further failure, up to five minutes (``RetryBackoff/defaultLimit``).
    public var displayRetryInterval: Duration = .seconds(10)
    /// How long a button must be held for a long press (STOP held cancels a timer).
    public var longPressDuration: Duration = .seconds(2)
    public var backlightDuration: Duration = .seconds(10)
    /// How long an idle press shows the next alarm's details.
    public var nextAlarmDisplayDuration: Duration = .seconds(5)
    /// How long a short STOP on a countdown (a snooze, a timer) shows what ends it instead
    /// ("Hold STOP to end").
    public var stopHintDuration: Duration = .seconds(3)
    /// How long an authorization prompt waits for a press before the client is left undecided.
    public var authorizationTimeout: Duration = .seconds(60)
    /// 24-hour (`07:30`) or 12-hour (`7:30am`) times.
    public var clockFormat: ClockFormat = .twentyFourHour
    /// When the bedroom is dark, if the household set it (``NightHours``).
    public var nightHours: NightHours?
    /// How long before an alarm the sunrise light starts to brighten (on a board with one); an
    /// alarm's own ``AlarmWake/lightLeadSeconds`` wins. Zero: the light stays off.
    public var sunriseLead: Duration = .seconds(20 * 60)
    /// What the light does once the alarm has been stopped (or rang out).
    public var lightAfterStop: LightAfterStop = .off
    /// How long the light stays on after the alarm with ``LightAfterStop/on`` (a STOP with
    /// nothing ringing turns it off sooner).
    public var lightKeptOn: Duration = .seconds(60 * 60)

    /// The sunrise light after the alarm: off at once, or left on to get up by.
    public enum LightAfterStop: String, Hashable, Sendable, CaseIterable {
        case off, on
    }

    public enum ClockFormat: String, Hashable, Sendable, CaseIterable {
        case twentyFourHour = "24h"
        case twelveHour = "12h"
    }

    public init() {}

    public var displayRetryBackoff: RetryBackoff {
        RetryBackoff(first: displayRetryInterval)
    }

    /// The household's crescendo.
    public var gainRamp: GainRamp { gainRamp(for: nil) }

    /// The crescendo of an alarm that wakes as `wake` says: its fade-in and loudest volume where
    /// it sets them, the household's where not, from the same audible floor.
    public func gainRamp(for wake: AlarmWake?) -> GainRamp {
        let target = wake?.volumeDB ?? volume
        let duration = wake?.crescendoSeconds.map { Duration.milliseconds(Int64(($0 * 1000).rounded())) } ?? crescendo
        return GainRamp(from: min(crescendoStart, target), to: target, over: duration)
    }

    /// The file a `.named` sound rings from: the household's copy if it has one by that name
    /// (the two never share a name: an upload may not take a packaged sound's), else the package's.
    public func soundPath(named name: String) -> String {
        if let householdSoundsDirectory, householdSounds.contains(name) { return householdSoundsDirectory + "/" + name }
        return soundsDirectory + "/" + name
    }
}
