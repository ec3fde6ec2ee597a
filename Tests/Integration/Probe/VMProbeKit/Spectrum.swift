import Glibc

/// The dominant frequency of stretches of a recording, from averaged Hann-windowed FFTs.
///
/// Each stretch is cut into blocks of up to 2048 samples (43 ms at 48 kHz, so a 100 ms beep gives
/// two), zero-padded to twice that; the power spectra of up to 16 blocks are summed and the peak
/// within the band is located between bins by fitting a parabola to the logarithm of the three
/// bins around it. For a steady tone that is within about 1 Hz; the alarm tone's 2 kHz must be
/// found within ±20 Hz.
public enum Spectrum {
    /// The block length for a stretch of `length` samples: 2048, or the largest power of two that
    /// fits, but not below 256; nil when even that does not fit.
    static func blockLength(forLongest length: Int) -> Int? {
        var block = 2048
        while block > length && block > 256 { block /= 2 }
        return block <= length ? block : nil
    }

    /// The frequency (Hz) with the most power in `band` over `stretches` of `samples`; nil when
    /// no stretch is at least 256 samples long or everything is silent.
    public static func dominantFrequency(
        of samples: [Int16], in stretches: [Range<Int>], sampleRate: Int, band: ClosedRange<Double> = 100...8000,
        maximumBlocks: Int = 16
    ) -> Double? {
        guard let block = blockLength(forLongest: stretches.map(\.count).max() ?? 0) else { return nil }
        let size = block * 2
        var power = [Double](repeating: 0, count: size / 2 + 1)
        var window = [Double](repeating: 0, count: block)
        for index in 0..<block {
            window[index] = 0.5 - 0.5 * cos(2 * Double.pi * Double(index) / Double(block - 1))
        }
        var blocks = 0
        var real = [Double](repeating: 0, count: size)
        var imaginary = [Double](repeating: 0, count: size)
        outer: for stretch in stretches {
            var start = stretch.lowerBound
            while start + block <= stretch.upperBound {
                if blocks == maximumBlocks { break outer }
                for index in 0..<size {
                    real[index] = index < block ? Double(samples[start + index]) * window[index] : 0
                    imaginary[index] = 0
                }
                transform(&real, &imaginary)
                for bin in power.indices {
                    power[bin] += real[bin] * real[bin] + imaginary[bin] * imaginary[bin]
                }
                blocks += 1
                start += block
            }
        }
        guard blocks > 0 else { return nil }
        let binWidth = Double(sampleRate) / Double(size)
        let lowest = max(1, Int((band.lowerBound / binWidth).rounded(.up)))
        let highest = min(power.count - 2, Int((band.upperBound / binWidth).rounded(.down)))
        guard lowest <= highest else { return nil }
        var peak = lowest
        for bin in lowest...highest where power[bin] > power[peak] { peak = bin }
        guard power[peak] > 0 else { return nil }
        let left = log(max(power[peak - 1], 1e-300))
        let centre = log(power[peak])
        let right = log(max(power[peak + 1], 1e-300))
        let curvature = left - 2 * centre + right
        let shift = curvature < 0 ? 0.5 * (left - right) / curvature : 0
        return (Double(peak) + max(-0.5, min(0.5, shift))) * binWidth
    }

    /// In-place iterative radix-2 FFT; the length must be a power of two.
    static func transform(_ real: inout [Double], _ imaginary: inout [Double]) {
        let count = real.count
        precondition(count > 0 && count & (count - 1) == 0, "FFT length must be a power of two")
        var target = 0
        for index in 0..<count {
            if index < target {
                real.swapAt(index, target)
                imaginary.swapAt(index, target)
            }
            var bit = count >> 1
            while bit > 0 && target & bit != 0 {
                target ^= bit
                bit >>= 1
            }
            target |= bit
        }
        var length = 2
        while length <= count {
            let angle = -2 * Double.pi / Double(length)
            let stepReal = cos(angle)
            let stepImaginary = sin(angle)
            var start = 0
            while start < count {
                var twiddleReal = 1.0
                var twiddleImaginary = 0.0
                for offset in 0..<(length / 2) {
                    let even = start + offset
                    let odd = even + length / 2
                    let oddReal = real[odd] * twiddleReal - imaginary[odd] * twiddleImaginary
                    let oddImaginary = real[odd] * twiddleImaginary + imaginary[odd] * twiddleReal
                    real[odd] = real[even] - oddReal
                    imaginary[odd] = imaginary[even] - oddImaginary
                    real[even] += oddReal
                    imaginary[even] += oddImaginary
                    let nextReal = twiddleReal * stepReal - twiddleImaginary * stepImaginary
                    twiddleImaginary = twiddleReal * stepImaginary + twiddleImaginary * stepReal
                    twiddleReal = nextReal
                }
                start += length
            }
            length <<= 1
        }
    }
}
