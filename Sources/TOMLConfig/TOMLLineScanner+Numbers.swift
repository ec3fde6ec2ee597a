extension TOMLLineScanner {
    /// An unquoted value: `true`, `false`, an integer or a float in TOML's grammar.
    static func scalarValue(_ token: String) throws(Failure) -> TOMLValue {
        switch token {
        case "": throw Failure("missing value")
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        case "inf", "+inf": return .float(.infinity)
        case "-inf": return .float(-.infinity)
        case "nan", "+nan", "-nan": return .float(.nan)
        default: break
        }
        let scalars = Array(token.unicodeScalars)
        guard let first = scalars.first, first == "+" || first == "-" || isDigit(first) else {
            throw Failure("invalid value \(token) (strings need quotes: \(TOMLValue.quoted(token)))")
        }
        if isDateOrTime(scalars) { throw Failure("dates and times are not supported") }
        if scalars.count >= 2, scalars[0] == "0", let radix = radix(of: scalars[1]) {
            return .integer(try prefixedInteger(token, digits: scalars.dropFirst(2), radix: radix))
        }
        if scalars.count > 3, first == "+" || first == "-", scalars[1] == "0", radix(of: scalars[2]) != nil {
            throw Failure("hexadecimal, octal and binary integers cannot have a sign: \(token)")
        }
        if !scalars.allSatisfy({ isDigit($0) || "_+-.eE".unicodeScalars.contains($0) }) {
            throw Failure("invalid value \(token) (strings need quotes: \(TOMLValue.quoted(token)))")
        }
        if scalars.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
            return .float(try float(token, scalars))
        }
        return .integer(try decimalInteger(token, scalars))
    }

    private static func radix(of scalar: Unicode.Scalar) -> Int? {
        switch scalar {
        case "x": 16
        case "o": 8
        case "b": 2
        default: nil
        }
    }

    private static func prefixedInteger(_ token: String, digits: ArraySlice<Unicode.Scalar>, radix: Int) throws(Failure) -> Int {
        guard let cleaned = withoutUnderscores(digits, isDigit: { Int(String($0), radix: radix) != nil }) else {
            throw Failure("invalid number \(token)")
        }
        // TOML: hexadecimal, octal and binary integers are non-negative and fit in 64 bits.
        guard let magnitude = UInt64(cleaned, radix: radix), let value = Int(exactly: magnitude) else {
            throw Failure("integer \(token) is out of range")
        }
        return value
    }

    private static func decimalInteger(_ token: String, _ scalars: [Unicode.Scalar]) throws(Failure) -> Int {
        let sign = scalars[0] == "+" || scalars[0] == "-" ? String(scalars[0]) : ""
        let body = scalars.dropFirst(sign.count)
        guard let digits = withoutUnderscores(body, isDigit: isDigit) else { throw Failure("invalid number \(token)") }
        if digits.count > 1, digits.hasPrefix("0") { throw Failure("leading zeros are not allowed in \(token)") }
        guard let value = Int(sign + digits) else { throw Failure("integer \(token) is out of range") }
        return value
    }

    /// `[+-] int [. digits] [(e|E) [+-] digits]`, with at least a fraction or an exponent.
    private static func float(_ token: String, _ scalars: [Unicode.Scalar]) throws(Failure) -> Double {
        var parts = scalars[...]
        var text = ""
        if let sign = parts.first, sign == "+" || sign == "-" {
            text.unicodeScalars.append(sign)
            parts = parts.dropFirst()
        }
        let exponentAt = parts.firstIndex { $0 == "e" || $0 == "E" }
        let mantissa = parts[..<(exponentAt ?? parts.endIndex)]
        let dotAt = mantissa.firstIndex(of: ".")
        guard let integer = withoutUnderscores(mantissa[..<(dotAt ?? mantissa.endIndex)], isDigit: isDigit) else {
            throw Failure("invalid number \(token)")
        }
        if integer.count > 1, integer.hasPrefix("0") { throw Failure("leading zeros are not allowed in \(token)") }
        text += integer
        if let dotAt {
            guard let fraction = withoutUnderscores(mantissa[(dotAt + 1)...], isDigit: isDigit) else {
                throw Failure("invalid number \(token)")
            }
            text += "." + fraction
        }
        if let exponentAt {
            var exponent = parts[(exponentAt + 1)...]
            text += "e"
            if let sign = exponent.first, sign == "+" || sign == "-" {
                text.unicodeScalars.append(sign)
                exponent = exponent.dropFirst()
            }
            guard let digits = withoutUnderscores(exponent, isDigit: isDigit) else { throw Failure("invalid number \(token)") }
            text += digits
        }
        guard let value = Double(text), value.isFinite else { throw Failure("float \(token) is out of range") }
        return value
    }

    /// The digits with the underscores removed, or `nil` if there are none, a non-digit, or an
    /// underscore that is not between two digits.
    private static func withoutUnderscores(_ scalars: ArraySlice<Unicode.Scalar>, isDigit: (Unicode.Scalar) -> Bool) -> String? {
        var result = ""
        var previousWasDigit = false
        for scalar in scalars {
            if scalar == "_" {
                guard previousWasDigit else { return nil }
                previousWasDigit = false
            } else {
                guard isDigit(scalar) else { return nil }
                result.unicodeScalars.append(scalar)
                previousWasDigit = true
            }
        }
        return previousWasDigit ? result : nil
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar)
    }

    /// `1979-05-27`, `07:32:00`: four digits and a dash, or two digits and a colon.
    private static func isDateOrTime(_ scalars: [Unicode.Scalar]) -> Bool {
        (scalars.count > 4 && scalars[0..<4].allSatisfy(isDigit) && scalars[4] == "-")
            || (scalars.count > 2 && scalars[0..<2].allSatisfy(isDigit) && scalars[2] == ":")
    }
}
