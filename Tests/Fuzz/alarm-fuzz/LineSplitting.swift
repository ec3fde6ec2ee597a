import AlarmControl
import AlarmProtocol

/// ``ControlLineDecoder`` fed an input in pieces, checked against a model of its contract that
/// reads the whole input at once.
enum LineSplitting {
    /// The decoder's outputs for `bytes` fed as `pieces`, after checking them against the model:
    /// the same lines whatever the pieces, each within the limit and without `\n`.
    static func split(_ bytes: [UInt8], pieces: [ArraySlice<UInt8>], limit: Int) -> [ControlLineDecoder.Output] {
        var decoder = ControlLineDecoder(maximumLineLength: limit)
        var outputs: [ControlLineDecoder.Output] = []
        for piece in pieces {
            let hadFailed = decoder.hasFailed
            let produced = decoder.feed(piece)
            if hadFailed {
                fuzzCheck(produced.isEmpty, "a failed decoder ignores what follows")
            } else {
                fuzzCheck(decoder.hasFailed == (produced.last == .tooLarge), "tooLarge comes last, exactly when the decoder fails")
            }
            outputs += produced
            fuzzCheck(decoder.pendingByteCount <= limit + 1, "\(decoder.pendingByteCount) bytes pending over a limit of \(limit)")
        }
        let expected = model(bytes, limit: limit)
        fuzzCheck(
            outputs == expected,
            "limit \(limit), pieces \(pieces.map(\.count)): decoder gave \(summary(outputs)), model \(summary(expected))")
        return outputs
    }

    /// The contract read from the whole input: lines end at `\n`, one `\r` before it is dropped,
    /// empty lines are skipped; a line longer than `limit`, or an unfinished one that cannot fit
    /// any more (over `limit` bytes, unless the last is the `\r` of a `\r\n`), gives `tooLarge`
    /// and nothing after it.
    static func model(_ bytes: [UInt8], limit: Int) -> [ControlLineDecoder.Output] {
        var outputs: [ControlLineDecoder.Output] = []
        var parts = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        let unfinished = parts.removeLast()
        for part in parts {
            var line = part
            if line.last == 0x0D { line = line.dropLast() }
            if line.count > limit { return outputs + [.tooLarge] }
            if !line.isEmpty { outputs.append(.line(Array(line))) }
        }
        if unfinished.count > limit + 1 || (unfinished.count == limit + 1 && unfinished.last != 0x0D) {
            outputs.append(.tooLarge)
        }
        return outputs
    }

    private static func summary(_ outputs: [ControlLineDecoder.Output]) -> String {
        outputs.map { output in
            switch output {
            case .line(let line): "line(\(line.count))"
            case .tooLarge: "tooLarge"
            }
        }.joined(separator: ", ")
    }
}
