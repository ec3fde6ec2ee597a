/// Text for an HD44780 character LCD with the common A00 character ROM (Japanese standard font).
///
/// The ROM is ASCII from 0x20 to 0x7D except 0x5C (a yen sign, not a backslash); 0x7E and 0x7F are
/// arrows, 0xA0-0xDF katakana, and 0xE0-0xFF a few Greek, German and math symbols. So:
/// - characters the ROM has are mapped to its codes (`ä` → 0xE1, `°` → 0xDF, `→` → 0x7E);
/// - accented letters it lacks are folded to their base letter (`é` → `e`, `Ä` → `A`), ligatures
///   spelled out (`æ` → `ae`), typographic quotes and dashes made plain;
/// - anything else is replaced *visibly*, with a full block (0xFF), never dropped silently.
public enum HD44780Text {
    public static let space: UInt8 = 0x20
    /// What an unknown character becomes: a full block, so a person sees something is missing.
    public static let replacement: UInt8 = 0xFF

    /// The ROM codes that show `text`, one or more per character.
    public static func encode(_ text: String) -> [UInt8] {
        var codes: [UInt8] = []
        codes.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if (0x0300...0x036F).contains(value) { continue }  // combining accents: folded away
            if value == 0x5C || value == 0x7E {
                codes.append(replacement)  // the ROM has ¥ and → in these places
            } else if (0x20...0x7D).contains(value) {
                codes.append(UInt8(value))
            } else if let rom = romCodes[scalar] {
                codes.append(rom)
            } else if let folded = folding[scalar] {
                codes += folded.utf8
            } else if value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value) {
                codes.append(space)  // control characters: a tab or a newline in a title
            } else {
                codes.append(replacement)
            }
        }
        return codes
    }

    /// A readable rendering of codes, for logs, tests and the simulator's terminal: ROM codes as
    /// the characters they look like, custom glyph slots 0-7 as `①`...`⑧`.
    public static func preview(_ codes: [UInt8]) -> String {
        String(codes.map { code -> Character in
            switch code {
            case 0...7: Character(Unicode.Scalar(0x2460 + UInt32(code))!)
            case 0x5C: "¥"
            case 0x20...0x7D: Character(Unicode.Scalar(code))
            default: romPreview[code] ?? "█"
            }
        })
    }

    /// Characters the A00 ROM has outside plain ASCII.
    private static let romCodes: [Unicode.Scalar: UInt8] = [
        "¥": 0x5C, "→": 0x7E, "←": 0x7F, "°": 0xDF, "º": 0xDF,
        "α": 0xE0, "ä": 0xE1, "ß": 0xE2, "β": 0xE2, "ε": 0xE3, "µ": 0xE4, "μ": 0xE4, "σ": 0xE5,
        "ρ": 0xE6, "√": 0xE8, "¢": 0xEC, "ñ": 0xEE, "ö": 0xEF, "θ": 0xF2, "∞": 0xF3, "Ω": 0xF4,
        "ü": 0xF5, "Σ": 0xF6, "π": 0xF7, "÷": 0xFD, "█": 0xFF, "\u{A0}": 0x20,
    ]

    private static let romPreview: [UInt8: Character] = [
        0x7E: "→", 0x7F: "←", 0xDF: "°", 0xE0: "α", 0xE1: "ä", 0xE2: "ß", 0xE3: "ε", 0xE4: "µ",
        0xE5: "σ", 0xE6: "ρ", 0xE8: "√", 0xEC: "¢", 0xEE: "ñ", 0xEF: "ö", 0xF2: "θ", 0xF3: "∞",
        0xF4: "Ω", 0xF5: "ü", 0xF6: "Σ", 0xF7: "π", 0xFD: "÷", 0xFF: "█",
    ]

    /// Letters and punctuation the ROM lacks, as the ASCII that stands for them.
    private static let folding: [Unicode.Scalar: String] = {
        var table: [Unicode.Scalar: String] = [:]
        let groups: [(String, String)] = [
            ("a", "àáâãåāăą"), ("A", "ÀÁÂÃÄÅĀĂĄ"), ("c", "çćĉċč"), ("C", "ÇĆĈĊČ"), ("d", "ďđ"), ("D", "ĎĐ"),
            ("e", "èéêëēĕėęě"), ("E", "ÈÉÊËĒĔĖĘĚ"), ("g", "ĝğġģ"), ("G", "ĜĞĠĢ"), ("h", "ĥħ"), ("H", "ĤĦ"),
            ("i", "ìíîïĩīĭįı"), ("I", "ÌÍÎÏĨĪĬĮİ"), ("j", "ĵ"), ("J", "Ĵ"), ("k", "ķ"), ("K", "Ķ"),
            ("l", "ĺļľŀł"), ("L", "ĹĻĽĿŁ"), ("n", "ńņňŉ"), ("N", "ÑŃŅŇ"), ("o", "òóôõøōŏő"),
            ("O", "ÒÓÔÕÖØŌŎŐ"), ("r", "ŕŗř"), ("R", "ŔŖŘ"), ("s", "śŝşš"), ("S", "ŚŜŞŠ"), ("t", "ţťŧ"),
            ("T", "ŢŤŦ"), ("u", "ùúûũūŭůűų"), ("U", "ÙÚÛÜŨŪŬŮŰŲ"), ("w", "ŵ"), ("W", "Ŵ"), ("y", "ýÿŷ"),
            ("Y", "ÝŶŸ"), ("z", "źżž"), ("Z", "ŹŻŽ"),
            ("'", "‘’‚‛′"), ("\"", "“”„‟″«»"), ("-", "‐‑‒–—―−"), ("*", "•·"),
        ]
        for (base, letters) in groups {
            for scalar in letters.unicodeScalars { table[scalar] = base }
        }
        for (scalar, spelled) in [("æ", "ae"), ("Æ", "AE"), ("œ", "oe"), ("Œ", "OE"), ("…", "..."), ("þ", "th"), ("Þ", "Th")] as [(Unicode.Scalar, String)] {
            table[scalar] = spelled
        }
        return table
    }()
}
