import AlarmHardware
import SimulatorConsole
import Testing

/// The keyboard decoder: letters to commands, escape sequences swallowed whole, even split.
@Suite struct KeyDecoderTests {
    private func decode(_ reads: String...) -> [SimulatorKey] {
        var decoder = KeyDecoder()
        return reads.flatMap { decoder.decode(Array($0.utf8)) }
    }

    @Test func lettersAreCaseSensitiveCommands() {
        #expect(decode("sSzZatq") == [
            .shortPress(.stop), .longPress(.stop), .shortPress(.snooze), .longPress(.snooze),
            .demoAlarm, .demoTimer, .quit,
        ])
    }

    @Test func ctrlCAndCtrlDQuit() {
        #expect(decode("\u{03}") == [.quit])
        #expect(decode("\u{04}") == [.quit])
    }

    @Test func unknownBytesAreIgnored() {
        #expect(decode("xQ1 \r\n\u{7F}\u{1A}é€s") == [.shortPress(.stop)])
    }

    @Test func arrowAndFunctionKeysAreSwallowedWhole() {
        // Up, down, right, left; Ctrl-Up; Delete; F5; application-mode arrows; F1.
        #expect(decode("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D\u{1B}[1;5A\u{1B}[3~\u{1B}[15~\u{1B}OA\u{1B}OP") == [])
        // The letters that end them are not commands: "A" is not "a", but "a" after one is.
        #expect(decode("\u{1B}[Aa\u{1B}OSs") == [.demoAlarm, .shortPress(.stop)])
    }

    @Test func altKeysAreSwallowed() {
        #expect(decode("\u{1B}s\u{1B}q") == [])
    }

    @Test func sequencesSplitAcrossReadsAreStillSwallowed() {
        #expect(decode("s\u{1B}", "[", "1;5", "Az") == [.shortPress(.stop), .shortPress(.snooze)])
        #expect(decode("\u{1B}", "O", "Bq") == [.quit])
    }

    @Test func ctrlCQuitsEvenInsideASequence() {
        #expect(decode("\u{1B}[1;\u{03}5A") == [.quit])
        #expect(decode("\u{1B}\u{03}s") == [.quit, .shortPress(.stop)])
    }

    @Test func aLoneEscapeIsAbandonedWhenNothingFollows() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.isInsideEscapeSequence)
        decoder.abandonEscapeSequence()  // the reader's timeout: it was the Escape key
        #expect(!decoder.isInsideEscapeSequence)
        #expect(decoder.decode(Array("q".utf8)) == [.quit])
    }

    @Test func aNewEscapeEndsAnUnfinishedSequence() {
        #expect(decode("\u{1B}\u{1B}[Bs") == [.shortPress(.stop)])
        #expect(decode("\u{1B}[1\u{1B}[Cz") == [.shortPress(.snooze)])
    }
}
