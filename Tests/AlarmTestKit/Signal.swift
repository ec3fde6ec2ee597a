import Glibc

/// Signal measurements with tolerances in mind, on samples as fractions of full scale.
public enum Signal {
    /// One channel of interleaved 16-bit samples (`channels` to a frame) as fractions of full scale.
    public static func fractions(_ samples: [Int16], channel: Int = 0, of channels: Int = 1) -> [Double] {
        stride(from: channel, to: samples.count, by: channels).map { Double(samples[$0]) / 32_767 }
    }

    /// The frequency in Hz of the sine in `samples[range]`, from its upward zero crossings
    /// (interpolated between samples).
    public static func frequency(_ samples: [Double], in range: Range<Int>, sampleRate: Int) -> Double {
        var crossings: [Double] = []
        for index in (range.lowerBound + 1)..<range.upperBound where samples[index - 1] < 0 && samples[index] >= 0 {
            let before = samples[index - 1], after = samples[index]
            crossings.append(Double(index - 1) + (-before) / (after - before))
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) / ((last - first) / Double(sampleRate))
    }

    /// The RMS level of `samples[range]` in dB relative to full scale.
    public static func decibels(_ samples: [Double], in range: Range<Int>) -> Double {
        let power = samples[range].reduce(0) { $0 + $1 * $1 } / Double(range.count)
        return 10 * log10(max(power, 1e-20))
    }

    /// The frames of `seconds` at `rate`.
    public static func frames(_ seconds: Double, rate: Int) -> Int { Int((seconds * Double(rate)).rounded()) }
}
