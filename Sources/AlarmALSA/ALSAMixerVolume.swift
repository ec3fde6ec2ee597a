import AlarmHardware
internal import CALSA
import Glibc

/// The sound card's own volume control, for a board whose profile names one (`sound.mixer`):
/// the alarm volume is then set in hardware once, and the software crescendo plays below it.
///
/// Each call opens the mixer, acts and closes it: volume changes are rare, and a card that went
/// away and came back needs no stale handle put right.
public struct ALSAMixerVolume: Hashable, Sendable {
    /// The control device as the profile gave it (`default`, `hw:0`, `hw:CARD=Headphones`).
    public let card: String
    /// The simple control's name (`PCM`, `Master`, `Headphone`).
    public let control: String
    /// What the mixer attaches to: ``card``, or `hw:CARD=ID` for a bare card id `ID` that alsa-lib
    /// would refuse ("Invalid CTL Headphones"), so an old profile's volume control still works.
    public let controlDevice: String

    /// Reads ALSA's configuration (no card) to settle ``controlDevice``.
    public init(card: String = "default", control: String) {
        self.card = card
        self.control = control
        self.controlDevice = ALSADeviceName.controlDevice(forCard: card)
    }

    private var deviceName: String { "\(controlDevice) mixer \(control)" }

    /// The control's playback range in dB.
    /// - Throws: ``HardwareError`` naming the card and control: `.deviceUnavailable` if either
    ///   does not exist, `.io` if the control has no dB scale.
    public func range() throws(HardwareError) -> ClosedRange<Double> {
        try withElement { element throws(HardwareError) in
            var minimum = 0, maximum = 0
            let result = snd_mixer_selem_get_playback_dB_range(element, &minimum, &maximum)
            guard result >= 0 else { throw HardwareError.alsa(result, device: deviceName) }
            return Double(minimum) / 100...Double(maximum) / 100
        }
    }

    /// Sets every channel to the step nearest `decibels` (clamped to the control's range) and
    /// unmutes it.
    public func set(decibels: Double) throws(HardwareError) {
        try withElement { element throws(HardwareError) in
            var minimum = 0, maximum = 0
            guard snd_mixer_selem_get_playback_dB_range(element, &minimum, &maximum) >= 0 else {
                throw HardwareError(.io, device: deviceName, errno: EINVAL)
            }
            let target = min(max(Int((decibels * 100).rounded()), minimum), maximum)
            let result = snd_mixer_selem_set_playback_dB_all(element, target, 0)
            guard result >= 0 else { throw HardwareError.alsa(result, device: deviceName) }
            if snd_mixer_selem_has_playback_switch(element) != 0 {
                _ = snd_mixer_selem_set_playback_switch_all(element, 1)
            }
        }
    }

    private func withElement<Result>(
        _ body: (OpaquePointer) throws(HardwareError) -> Result
    ) throws(HardwareError) -> Result {
        _ = ALSAMessages.routed
        var mixer: OpaquePointer?
        var result = snd_mixer_open(&mixer, 0)
        guard result >= 0, let mixer else { throw HardwareError.alsa(result, device: deviceName) }
        defer { snd_mixer_close(mixer) }
        result = snd_mixer_attach(mixer, controlDevice)
        guard result >= 0 else { throw HardwareError.alsa(result, device: deviceName) }
        result = snd_mixer_selem_register(mixer, nil, nil)
        guard result >= 0 else { throw HardwareError.alsa(result, device: deviceName) }
        result = snd_mixer_load(mixer)
        guard result >= 0 else { throw HardwareError.alsa(result, device: deviceName) }
        var identifier: OpaquePointer?
        guard snd_mixer_selem_id_malloc(&identifier) >= 0, let identifier else {
            throw HardwareError(.io, device: deviceName, errno: ENOMEM)
        }
        defer { snd_mixer_selem_id_free(identifier) }
        snd_mixer_selem_id_set_name(identifier, control)
        snd_mixer_selem_id_set_index(identifier, 0)
        guard let element = snd_mixer_find_selem(mixer, identifier) else {
            throw HardwareError(.deviceUnavailable, device: deviceName, errno: ENOENT)
        }
        return try body(element)
    }
}
