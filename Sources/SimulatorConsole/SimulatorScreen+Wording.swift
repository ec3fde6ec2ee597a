import AlarmHardware

extension SimulatorScreen {
    /// The LED in words: `LED: off`, `LED: on`, `LED: blinking 250/250 ms (colour #FF8000)`,
    /// `LED: 3 flashes, then 2000 ms dark`, `LED: breathing, 4000 ms period`. The colour is named
    /// only for an LED that has colours; a black pattern leaves any LED dark and says so.
    public static func ledText(_ pattern: IndicatorPattern, hasColor: Bool) -> String {
        let (wording, color): (String, IndicatorColor?) =
            switch pattern {
            case .off: ("off", nil)
            case .steady(let color): ("on", color)
            case .blink(let color, let on, let off): ("blinking \(milliseconds(on))/\(milliseconds(off)) ms", color)
            case .flashes(let color, let count, let pause):
                ("\(count) \(count == 1 ? "flash" : "flashes"), then \(milliseconds(pause)) ms dark", color)
            case .breathe(let color, let period): ("breathing, \(milliseconds(period)) ms period", color)
            }
        guard let color else { return "LED: " + wording }
        if color == IndicatorColor(red: 0, green: 0, blue: 0) {
            return "LED: " + wording + " (black: stays dark)"
        }
        return hasColor ? "LED: \(wording) (colour \(hex(color)))" : "LED: " + wording
    }

    /// The sunrise light in words: `Light: off`, `Light: 18% (looks 50%)`, `Light: full`: the
    /// output, and how bright that looks (``PerceivedLightness``), which rises evenly.
    public static func lightText(_ output: Double) -> String {
        guard output > 0 else { return "Light: off" }
        guard output < 1 else { return "Light: full" }
        let looks = Int((PerceivedLightness.lightness(output: output) * 100).rounded())
        return "Light: \(decimal(output * 100, digits: 1, trimmed: true))% (looks \(looks)%)"
    }

    /// The speaker in words: `Sound: off`, `Sound: playing built-in tone, -12.3 dB (ramping to
    /// -6 dB)`, `Sound: built-in tone (silent: no sound device)`, `Sound: failed: <message>`.
    public static func soundText(_ sound: Sound) -> String {
        switch sound {
        case .off:
            return "Sound: off"
        case .playing(let source, let decibels, let target):
            var text = "Sound: playing \(sourceText(source)), \(decimal(decibels, digits: 1, trimmed: false)) dB"
            if let target, abs(target - decibels) >= 0.05 {
                text += " (ramping to \(decimal(target, digits: 1, trimmed: true)) dB)"
            }
            return text
        case .silent(let source):
            return "Sound: " + (source.map { sourceText($0) + " " } ?? "") + "(silent: no sound device)"
        case .failed(let message):
            return "Sound: failed: " + message
        }
    }

    /// `built-in tone`, or a file's name without its directory.
    static func sourceText(_ source: SoundSource) -> String {
        switch source {
        case .builtInTone: "built-in tone"
        case .file(let path): String(path.split(separator: "/").last ?? Substring(path))
        }
    }

    /// `60x`, `0.5x`, `1.25x`.
    static func speedText(_ speed: Double) -> String {
        decimal(speed, digits: 2, trimmed: true) + "x"
    }

    /// `#FF8000`.
    static func hex(_ color: IndicatorColor) -> String {
        "#" + [color.red, color.green, color.blue].map { component in
            let text = String(Int((component * 255).rounded()), radix: 16, uppercase: true)
            return text.count == 1 ? "0" + text : text
        }.joined()
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + Int64((Double(attoseconds) / 1e15).rounded())
    }

    /// `value` with `digits` decimals (FoundationEssentials has no `String(format:)`), trailing
    /// zeros dropped if `trimmed`; never `-0.0`.
    static func decimal(_ value: Double, digits: Int, trimmed: Bool) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return "\(value)" }
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int64((abs(value) * Double(scale)).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        var fraction = String(scaled % scale)
        fraction = String(repeating: "0", count: digits - fraction.count) + fraction
        if trimmed {
            while fraction.hasSuffix("0") { fraction.removeLast() }
        }
        return sign + String(scaled / scale) + (fraction.isEmpty ? "" : "." + fraction)
    }
}
