/// Text that others wrote (titles, button labels, sound and user names, the daemon's messages),
/// made safe to print on a terminal: one user's alarm title reaches an administrator's terminal
/// through `alarmctl list --all`, and an escape sequence in it would run there.
///
/// Every character that can control a terminal or reorder what is shown (``isControlling(_:)``:
/// C0 and C1 controls, DEL, bidi controls, line and paragraph separators) is printed as its code
/// point in Swift's escape form, `\u{1B}`. Newline and tab are escaped too, so a value stays on its
/// line and in its column. Everything else, a backslash included, is printed as it is.
///
/// `--json` output stays JSON: `JSONEncoder` escapes the C0 controls, and ``jsonEscaped(_:)``
/// the rest of these as `\uXXXX`, which a JSON reader reads back as the same characters.
enum TerminalText {
    static func escaped(_ text: String) -> String {
        replacing(text, where: isControlling) { "\\u{" + hex($0, digits: 2) + "}" }
    }

    /// Encoded JSON with every character ``isControlling(_:)`` names written as a JSON escape
    /// (`\u009B`), but for the whitespace between tokens (LF, CR, tab). `JSONEncoder` escapes
    /// the C0 controls in strings and writes the others only inside strings, where the escape
    /// means the same character, so the document's meaning is unchanged.
    static func jsonEscaped(_ json: String) -> String {
        replacing(json, where: { isControlling($0) && $0 != "\n" && $0 != "\r" && $0 != "\t" }) { "\\u" + hex($0, digits: 4) }
    }

    private static func replacing(
        _ text: String, where matches: (Unicode.Scalar) -> Bool, with escape: (Unicode.Scalar) -> String
    ) -> String {
        guard text.unicodeScalars.contains(where: matches) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if matches(scalar) {
                result += escape(scalar)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func hex(_ scalar: Unicode.Scalar, digits: Int) -> String {
        let text = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// Whether a terminal may act on `scalar` rather than show it.
    static func isControlling(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        case 0x2028, 0x2029: true
        default: false
        }
    }
}
