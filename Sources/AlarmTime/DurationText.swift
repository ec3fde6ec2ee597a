/// Durations as people write them, everywhere alarmd reads one (the configuration file,
/// `alarmctl`, scenario scripts): `9m`, `90s`, `1h30m`, `500ms`, `1.5h`, and `0`; to the
/// millisecond.
///
/// ```swift
/// DurationText.parse("1h30m")            // .seconds(5400)
/// DurationText.format(.seconds(5400))    // "1h30m"
/// ```
public enum DurationText {
    /// The duration `text` spells, or `nil` if it is not one: units are `h`, `m`, `s` and `ms`,
    /// each number may have a fraction, and the total must be a whole number of milliseconds.
    /// `"0"` is zero; any other number needs its unit.
    public static func parse(_ text: String) -> Duration? {
        if text == "0" { return .zero }
        var scalars = Array(text.unicodeScalars)[...]
        guard !scalars.isEmpty else { return nil }
        var milliseconds = 0
        while !scalars.isEmpty {
            let whole = scalars.prefix { ("0"..."9").contains($0) }
            scalars = scalars.dropFirst(whole.count)
            var fraction: ArraySlice<Unicode.Scalar> = []
            if scalars.first == "." {
                scalars = scalars.dropFirst()
                fraction = scalars.prefix { ("0"..."9").contains($0) }
                scalars = scalars.dropFirst(fraction.count)
                guard !fraction.isEmpty else { return nil }
            }
            guard !whole.isEmpty || !fraction.isEmpty, whole.count + fraction.count <= 12 else { return nil }
            let unit: Int
            if scalars.starts(with: ["m", "s"]) {
                unit = 1; scalars = scalars.dropFirst(2)
            } else if let first = scalars.first, let value = ["h": 3_600_000, "m": 60_000, "s": 1000][first] {
                unit = value; scalars = scalars.dropFirst()
            } else {
                return nil
            }
            // The fraction must come out in whole milliseconds: "1.5s" yes, "1.0005s" no.
            var scale = 1
            for _ in fraction { scale *= 10 }
            let fractionValue = Int(String(String.UnicodeScalarView(fraction))) ?? 0
            guard (fractionValue * unit) % scale == 0 else { return nil }
            let term = (Int(String(String.UnicodeScalarView(whole))) ?? 0) * unit + fractionValue * unit / scale
            let (sum, overflow) = milliseconds.addingReportingOverflow(term)
            guard !overflow else { return nil }
            milliseconds = sum
        }
        return .milliseconds(milliseconds)
    }

    /// `duration` in the shortest spelling ``parse(_:)`` reads back: `"1h30m"`, `"90ms"`, `"0"`.
    /// Sub-millisecond parts are dropped.
    public static func format(_ duration: Duration) -> String {
        var remaining = Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
        guard remaining > 0 else { return "0" }
        var text = ""
        for (unit, name) in [(3_600_000, "h"), (60_000, "m"), (1000, "s"), (1, "ms")] where remaining >= unit {
            text += "\(remaining / unit)\(name)"
            remaining %= unit
        }
        return text
    }
}

extension Duration {
    /// The duration in seconds as a floating-point number, as `Date` and `TimeInterval` count.
    public var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
