import AlarmBoard
import AlarmTestKit
import TOMLConfig
import Testing

@Suite struct TOMLMutationTests {
    /// Characters the parser treats specially, so mutations reach its corners more often than
    /// random bytes would.
    static let interesting: [Unicode.Scalar] = [
        "\"", "'", "\\", "[", "]", "{", "}", "=", ".", ",", "#", "\n", "\r", "\t", " ", "_", "0", "x", "e", "-", "+",
        "u", "U", "\u{0}", "\u{7F}", "\u{FEFF}", "é", "🔔",
    ]

    /// A valid profile, mutated 2,000 ways (seeded, so a failure replays): every run must end in a
    /// document or in a ConfigError naming a line of the text, and never trap. What parses must
    /// also go through the profile reader without trapping.
    @Test func mutatedFilesNeverTrapAndEveryErrorHasALine() throws {
        let base = Array(try TestBoards.text("rpi4b").unicodeScalars)
        var random = SeededRandomNumberGenerator(seed: 0x544F_4D4C)
        var parsed = 0
        for round in 0..<2_000 {
            var scalars = base
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let at = Int.random(in: 0...scalars.count, using: &random)
                let scalar = random.nextBool(1, in: 3)
                    ? Unicode.Scalar(UInt8.random(in: 0...127, using: &random))
                    : Self.interesting.randomElement(using: &random)!
                switch Int.random(in: 0..<4, using: &random) {
                case 0 where at < scalars.count: scalars[at] = scalar
                case 1 where at < scalars.count: scalars.remove(at: at)
                case 2:
                    let end = min(scalars.count, at + Int.random(in: 1...40, using: &random))
                    scalars.insert(contentsOf: scalars[min(at, scalars.count)..<end], at: min(at, scalars.count))
                default: scalars.insert(scalar, at: at)
                }
            }
            let text = String(String.UnicodeScalarView(scalars))
            let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).count
            do {
                let document = try TOMLDocument.parse(text, file: "m.toml")
                parsed += 1
                #expect(document.entries.allSatisfy { (1...lines).contains($0.line) }, "round \(round)")
                do {
                    let loaded = try BoardProfile.parse(text, file: "m.toml", defaultName: "m")
                    #expect(loaded.warnings.allSatisfy { (1...lines).contains($0.line) }, "round \(round)")
                } catch {
                    #expect((0...lines).contains(error.line) && !error.message.isEmpty, "round \(round): \(error)")
                }
            } catch {
                #expect((1...lines).contains(error.line) && error.file == "m.toml" && !error.message.isEmpty, "round \(round): \(error)")
            }
        }
        // Both outcomes must be common, or the mutations are not testing much.
        #expect(parsed > 200 && parsed < 1_800, "\(parsed) of 2,000 parsed")
    }
}

extension SeededRandomNumberGenerator {
    /// True `numerator` times in `denominator`.
    mutating func nextBool(_ numerator: Int, in denominator: Int) -> Bool {
        Int.random(in: 0..<denominator, using: &self) < numerator
    }
}
