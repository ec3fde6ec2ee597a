import AlarmEngine
import AlarmHardware
import AlarmModel
import FoundationEssentials

/// What the appliance has the sound output doing: between alerts, getting the device ready for
/// the next one; during an alert, playing it (or retrying when nothing could play).
enum SoundState: Hashable, Sendable {
    /// No alert. `prepared`: the alert the device was last made ready for; `prepareAt`: when to
    /// make it ready for the next one.
    case quiet(prepared: PreparedAlert?, prepareAt: Date?)
    /// `alarm` alerts: `source` plays (`nil` while nothing could, or after a button silenced it
    /// ahead of the engine); `namedSoundFailed`: its own sound failed, so it gets the built-in tone.
    case alert(alarm: AlarmKey, source: SoundSource?, namedSoundFailed: Bool)

    static let silent = SoundState.quiet(prepared: nil, prepareAt: nil)

    /// An alert the sound device was made ready for, and when it is due to begin.
    struct PreparedAlert: Hashable, Sendable {
        var alarm: AlarmKey
        var at: Date
    }

    /// What plays now, if anything.
    var source: SoundSource? {
        if case .alert(_, let source, _) = self { return source }
        return nil
    }

    /// The alarm whose sound plays now.
    var playingAlarm: AlarmKey? {
        if case .alert(let alarm, _?, _) = self { return alarm }
        return nil
    }

    /// When the device is next to be made ready for an alert.
    var prepareAt: Date? {
        if case .quiet(_, let prepareAt) = self { return prepareAt }
        return nil
    }

    /// Whether `alarm`'s named sound failed during its alert.
    func namedSoundFailed(for alarm: AlarmKey) -> Bool {
        if case .alert(alarm, _, true) = self { return true }
        return false
    }

    /// The alert goes on without sound: it failed, or a button stopped it ahead of the engine.
    mutating func soundStopped(namedSoundFailed failed: Bool = false) {
        if case .alert(let alarm, _, let named) = self {
            self = .alert(alarm: alarm, source: nil, namedSoundFailed: named || failed)
        }
    }
}

extension SoundSource {
    var isFile: Bool {
        if case .file = self { return true }
        return false
    }
}
