/// Decimal numbers as the probe reads and writes them: exactly, without Foundation.
///
/// Instants are counted in integer nanoseconds so that `1764000000.123456` survives a round trip
/// (a `Double` near 1.7e9 s resolves only about 0.24 µs).
public enum DecimalText {
    /// `[-]DIGITS[.DIGITS]` as a count of nanoseconds (the text is in seconds); digits past the
    /// ninth decimal are rounded. `nil` for anything else, including an empty integer part
    /// followed by nothing (`"."`) or a value beyond about ±292 years.
    public static func nanoseconds(fromSeconds text: some StringProtocol) -> Int64? {
        var utf8 = Substring(text).utf8[...]
        var negative = false
        if utf8.first == UInt8(ascii: "-") || utf8.first == UInt8(ascii: "+") {
            negative = utf8.first == UInt8(ascii: "-")
            utf8 = utf8.dropFirst()
        }
        var whole: Int64 = 0
        var fraction: Int64 = 0
        var fractionDigits = 0
        var roundUp = false
        var digits = 0
        var inFraction = false
        for byte in utf8 {
            if byte == UInt8(ascii: ".") {
                guard !inFraction else { return nil }
                inFraction = true
                continue
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let digit = Int64(byte - UInt8(ascii: "0"))
            digits += 1
            if !inFraction {
                let (times, overflow1) = whole.multipliedReportingOverflow(by: 10)
                let (plus, overflow2) = times.addingReportingOverflow(digit)
                guard !overflow1, !overflow2, plus <= Int64.max / 1_000_000_000 else { return nil }
                whole = plus
            } else if fractionDigits < 9 {
                fraction = fraction * 10 + digit
                fractionDigits += 1
            } else if fractionDigits == 9 {
                roundUp = digit >= 5
                fractionDigits += 1
            }
        }
        guard digits > 0 else { return nil }
        for _ in min(fractionDigits, 9)..<9 { fraction *= 10 }
        let value = whole * 1_000_000_000 + fraction + (roundUp ? 1 : 0)
        return negative ? -value : value
    }

    /// Seconds with `decimals` decimals (0...9), rounded half away from zero: `1764000000.123456`.
    public static func seconds(nanoseconds: Int64, decimals: Int = 6) -> String {
        precondition((0...9).contains(decimals), "0 to 9 decimals")
        var divisor: Int64 = 1
        for _ in decimals..<9 { divisor *= 10 }
        let magnitude = nanoseconds.magnitude
        let units = (magnitude + divisor.magnitude / 2) / divisor.magnitude
        return format(units: units, decimals: decimals, negative: nanoseconds < 0 && units != 0)
    }

    /// `value` with `decimals` decimals, rounded half away from zero; `nil` when it is not finite
    /// or too large to print exactly (beyond 9e18 units).
    public static func fixed(_ value: Double, decimals: Int) -> String? {
        guard value.isFinite else { return nil }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (value.magnitude * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e18 else { return nil }
        let units = UInt64(scaled)
        return format(units: units, decimals: decimals, negative: value < 0 && units != 0)
    }

    private static func format(units: UInt64, decimals: Int, negative: Bool) -> String {
        var scale: UInt64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let whole = String(units / scale)
        let sign = negative ? "-" : ""
        guard decimals > 0 else { return sign + whole }
        let fraction = String(units % scale)
        return sign + whole + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
}
