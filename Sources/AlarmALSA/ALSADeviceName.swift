internal import CALSAShim
import Glibc

/// An ALSA device name checked the way alsa-lib reads it before opening anything: the part before
/// the first `:` must name a definition in ALSA's configuration (`hw`, `plughw`, `default`, or one
/// from an asoundrc), and the rest must be arguments it takes.
///
/// ```swift
/// ALSADeviceName.problem(with: "Headphones", as: .control)          // .noDefinition
/// ALSADeviceName.problem(with: "hw:CARD=Headphones", as: .control)  // nil
/// ```
///
/// No card is opened, so the answer is the same on a machine without sound hardware; a name that
/// passes can still fail to open when its card is absent.
public enum ALSADeviceName {
    /// What the name opens.
    public enum Kind: String, Hashable, Sendable {
        /// A control device, which a mixer attaches to (`snd_mixer_attach`, `snd_ctl_open`).
        case control = "ctl"
        /// A PCM, which plays sound (`snd_pcm_open`).
        case pcm
    }

    /// Why alsa-lib would refuse a name before looking for its card.
    public enum Problem: Error, Hashable, Sendable, CustomStringConvertible {
        /// No definition of that name: `Headphones` (a card id, which is written `hw:CARD=Headphones`).
        case noDefinition(name: String, kind: Kind)
        /// The definition exists but does not take these arguments (`hw:CARD=X,DEV=0` for a
        /// control, whose `hw` takes only `CARD`); `detail` is alsa-lib's own message, if any.
        case argumentsRefused(name: String, kind: Kind, detail: String?)

        public var description: String {
            switch self {
            case .noDefinition(let name, let kind):
                let spelling = "hw:CARD=\(name)" + (kind == .pcm ? ",DEV=0" : "")
                let suggestion = ALSADeviceName.isBareIdentifier(name) ? "; a card from `aplay -l` is written \"\(spelling)\"" : ""
                return "alsa-lib has no \(kind.shown) named \"\(name)\"\(suggestion)"
            case .argumentsRefused(let name, let kind, let detail):
                let key = name.prefix { $0 != ":" }
                return "alsa-lib's \(kind.shown) \"\(key)\" does not take the arguments of \"\(name)\""
                    + (detail.map { " (\($0))" } ?? "")
            }
        }
    }

    /// The problem alsa-lib's configuration finds with `name` as a device of `kind`, or `nil` when
    /// it resolves (or when only the machine lacks the card it names).
    /// The corresponding C functions are `snd_config_update_ref` and `snd_config_search_definition`.
    public static func problem(with name: String, as kind: Kind) -> Problem? {
        _ = ALSAMessages.routed
        _ = ALSAMessages.take()
        let result = alarmd_alsa_resolve_name(kind.rawValue, name)
        let message = ALSAMessages.take()
        switch result {
        case 0...: return nil
        case -ENOENT: return .noDefinition(name: name, kind: kind)
        default: return .argumentsRefused(name: name, kind: kind, detail: message)
        }
    }

    /// The control device a mixer on `card` attaches to: `card` itself, except that a bare card id
    /// that alsa-lib has no control of that name for (`Headphones`, as `aplay -l` shows it) is taken
    /// as the card it names, `hw:CARD=Headphones`.
    public static func controlDevice(forCard card: String) -> String {
        guard isBareIdentifier(card), case .noDefinition? = problem(with: card, as: .control) else { return card }
        return "hw:CARD=" + card
    }

    /// A name that could be a card id (letters, digits, `_` and `-`): no `:` arguments, no `.` path.
    static func isBareIdentifier(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
    }
}

extension ALSADeviceName.Kind {
    fileprivate var shown: String {
        switch self {
        case .control: "control device"
        case .pcm: "PCM"
        }
    }
}
