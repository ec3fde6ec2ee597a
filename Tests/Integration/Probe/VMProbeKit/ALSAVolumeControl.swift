import Glibc
internal import CALSA
internal import CALSAShim

/// A sound card's playback volume control, made and read as a Raspberry Pi's jack has one: snd-aloop
/// has no control of its own, so the Pi-shaped guest adds a user-defined `PCM Playback Volume`
/// (what alsa-lib's softvol plugin adds, with a dB scale), which alsa-lib's simple mixer then
/// shows as the control `PCM`, as on a Pi. The value only scales nothing here: it records what
/// alarmd set.
public enum ALSAVolumeControl {
    /// The scale the added control has: steps of 0.4 dB from -102.4 dB (step 0) to 0 dB (step 256).
    public static let minimumCentibels = -10_240
    public static let stepCentibels = 40
    public static let steps = 256

    /// Adds an integer control `name` on the control device `card` (`hw:CARD=Headphones`) with
    /// the dB scale above, set to 0 dB. The corresponding C functions are `snd_ctl_elem_add_integer`,
    /// `snd_ctl_elem_tlv_write` and `snd_ctl_elem_write`.
    /// - Throws: ``ProbeError`` naming the step that failed.
    public static func add(card: String, name: String) throws(ProbeError) {
        _ = alarmd_alsa_route_errors()
        var control: OpaquePointer?
        var result = snd_ctl_open(&control, card, 0)
        guard result >= 0, let control else { throw ProbeError("cannot open control device \(card): \(ALSACapture.describe(result))") }
        defer { snd_ctl_close(control) }
        var identifier: OpaquePointer?
        guard snd_ctl_elem_id_malloc(&identifier) >= 0, let identifier else { throw ProbeError("out of memory") }
        defer { snd_ctl_elem_id_free(identifier) }
        snd_ctl_elem_id_set_interface(identifier, SND_CTL_ELEM_IFACE_MIXER)
        snd_ctl_elem_id_set_name(identifier, name)
        result = snd_ctl_elem_add_integer(control, identifier, 1, 0, steps, 1)
        guard result >= 0 else { throw ProbeError("cannot add control \"\(name)\" on \(card): \(ALSACapture.describe(result))") }
        // SNDRV_CTL_TLVT_DB_SCALE (1), 8 bytes: the minimum and the step, both in 0.01 dB.
        var scale: [UInt32] = [1, 8, UInt32(bitPattern: Int32(minimumCentibels)), UInt32(stepCentibels)]
        result = scale.withUnsafeMutableBufferPointer { snd_ctl_elem_tlv_write(control, identifier, $0.baseAddress) }
        guard result >= 0 else { throw ProbeError("cannot give control \"\(name)\" its dB scale: \(ALSACapture.describe(result))") }
        var value: OpaquePointer?
        guard snd_ctl_elem_value_malloc(&value) >= 0, let value else { throw ProbeError("out of memory") }
        defer { snd_ctl_elem_value_free(value) }
        snd_ctl_elem_value_set_id(value, identifier)
        snd_ctl_elem_value_set_integer(value, 0, steps)
        result = snd_ctl_elem_write(control, value)
        guard result >= 0 else { throw ProbeError("cannot set control \"\(name)\": \(ALSACapture.describe(result))") }
    }

    /// The simple control `name`'s playback volume on `card`: its raw value and in dB. The
    /// corresponding C functions are `snd_mixer_selem_get_playback_volume` and
    /// `snd_mixer_selem_get_playback_dB`.
    public static func read(card: String, name: String) throws(ProbeError) -> (raw: Int, decibels: Double) {
        _ = alarmd_alsa_route_errors()
        var mixer: OpaquePointer?
        var result = snd_mixer_open(&mixer, 0)
        guard result >= 0, let mixer else { throw ProbeError("cannot open a mixer: \(ALSACapture.describe(result))") }
        defer { snd_mixer_close(mixer) }
        result = snd_mixer_attach(mixer, card)
        guard result >= 0 else { throw ProbeError("cannot attach the mixer to \(card): \(ALSACapture.describe(result))") }
        result = snd_mixer_selem_register(mixer, nil, nil)
        guard result >= 0 else { throw ProbeError("cannot register simple controls: \(ALSACapture.describe(result))") }
        result = snd_mixer_load(mixer)
        guard result >= 0 else { throw ProbeError("cannot load \(card)'s controls: \(ALSACapture.describe(result))") }
        var identifier: OpaquePointer?
        guard snd_mixer_selem_id_malloc(&identifier) >= 0, let identifier else { throw ProbeError("out of memory") }
        defer { snd_mixer_selem_id_free(identifier) }
        snd_mixer_selem_id_set_name(identifier, name)
        snd_mixer_selem_id_set_index(identifier, 0)
        guard let element = snd_mixer_find_selem(mixer, identifier) else { throw ProbeError("no simple control \"\(name)\" on \(card)") }
        var raw = 0, centibels = 0
        result = snd_mixer_selem_get_playback_volume(element, SND_MIXER_SCHN_MONO, &raw)
        guard result >= 0 else { throw ProbeError("cannot read \"\(name)\": \(ALSACapture.describe(result))") }
        result = snd_mixer_selem_get_playback_dB(element, SND_MIXER_SCHN_MONO, &centibels)
        guard result >= 0 else { throw ProbeError("cannot read \"\(name)\" in dB: \(ALSACapture.describe(result))") }
        return (raw, Double(centibels) / 100)
    }
}
