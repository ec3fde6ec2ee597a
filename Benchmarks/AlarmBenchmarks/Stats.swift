import Glibc

/// Keeps a value alive and opaque to the optimizer, so a measured expression is not removed.
@inline(never) @_optimize(none)
func blackHole<T>(_ value: T) {}

/// Microseconds in a `Duration`.
func microseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e6 + Double(attoseconds) * 1e-12
}

/// A summary of timing samples, in microseconds.
struct Summary: Sendable {
    let count: Int
    let p50: Double
    let p99: Double
    let max: Double
    let mean: Double

    /// Nearest-rank percentiles of `samples` (microseconds).
    init(_ samples: [Double]) {
        precondition(!samples.isEmpty, "no samples")
        let sorted = samples.sorted()
        count = sorted.count
        func rank(_ fraction: Double) -> Double {
            let index = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.min(Swift.max(index, 0), sorted.count - 1)]
        }
        p50 = rank(0.50)
        p99 = rank(0.99)
        max = sorted[sorted.count - 1]
        mean = sorted.reduce(0, +) / Double(sorted.count)
    }
}

/// Collects timing samples, skipping the first `warmup` ones.
struct Sampler {
    let warmup: Int
    private(set) var samples: [Double] = []
    private var seen = 0

    init(warmup: Int, capacity: Int) {
        self.warmup = warmup
        samples.reserveCapacity(capacity)
    }

    mutating func record(_ duration: Duration) {
        seen += 1
        if seen > warmup { samples.append(microseconds(duration)) }
    }

    var summary: Summary { Summary(samples) }
}

// MARK: - Formatting

/// `value` with `decimals` decimals (no Foundation formatting on Linux without Foundation).
func fixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "\(value)" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (abs(value) * scale).rounded()
    let whole = Int(rounded / scale)
    var text = grouped(whole)
    if decimals > 0 {
        let fraction = Int(rounded - Double(whole) * scale)
        var digits = String(fraction)
        while digits.count < decimals { digits = "0" + digits }
        text += "." + digits
    }
    return (value < 0 && rounded != 0 ? "-" : "") + text
}

/// A time in microseconds with a precision that suits its size.
func micros(_ value: Double) -> String {
    if value < 10 { return fixed(value, 2) }
    if value < 100 { return fixed(value, 1) }
    return fixed(value, 0)
}

/// A time in milliseconds.
func millis(_ microseconds: Double) -> String {
    fixed(microseconds / 1000, microseconds < 10_000 ? 2 : 1)
}

/// 12345 as "12,345".
func grouped(_ value: Int) -> String {
    let digits = Array(String(value.magnitude))
    var text = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
        text.append(digit)
    }
    return (value < 0 ? "-" : "") + text
}

func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
    let padding = String(repeating: " ", count: max(0, width - text.count))
    return left ? text + padding : padding + text
}

/// Prints a table: the first column left-aligned, the others right-aligned.
func printTable(_ header: [[String]], _ rows: [[String]]) {
    let all = header + rows
    let columns = all.map(\.count).max() ?? 0
    var widths = [Int](repeating: 0, count: columns)
    for row in all {
        for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
    }
    func line(_ row: [String]) -> String {
        row.enumerated().map { index, cell in
            index == 0 ? pad(cell, widths[index], left: true) : pad(cell, widths[index])
        }.joined(separator: "  ")
    }
    for row in header { print(line(row)) }
    print(String(repeating: "-", count: widths.reduce(0, +) + 2 * (columns - 1)))
    for row in rows { print(line(row)) }
}

/// The ContinuousClock's own cost: the time measured around nothing.
func timerOverhead(samples: Int) -> Summary {
    let clock = ContinuousClock()
    var sampler = Sampler(warmup: 100, capacity: samples)
    for _ in 0..<(samples + 100) {
        let start = clock.now
        let end = clock.now
        sampler.record(end - start)
    }
    return sampler.summary
}

/// /proc/loadavg's first three fields: how busy the machine was around the run.
func loadAverage() -> String {
    guard let file = fopen("/proc/loadavg", "r") else { return "unknown" }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 128)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return "unknown" }
    let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return text.split(separator: " ").prefix(3).joined(separator: " ")
}

/// CPU time of this process, all threads: excludes time spent waiting (for fsync, or for a CPU
/// taken by another process), which wall time includes.
func processCPUTime() -> Duration {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
}

/// Wall-clock and CPU summaries of one measured operation.
struct Timing: Sendable {
    let wall: Summary
    let cpu: Summary
}

/// Runs `body(index)` `warmup + samples` times, timing each run in wall time (`ContinuousClock`)
/// and in process CPU time; the first `warmup` runs are not kept. For operations of a millisecond
/// or more, where the two clock readings' own cost does not matter.
func measure(warmup: Int, samples: Int, _ body: (Int) throws -> Void) rethrows -> Timing {
    let clock = ContinuousClock()
    var wall = Sampler(warmup: warmup, capacity: samples)
    var cpu = Sampler(warmup: warmup, capacity: samples)
    for index in 0..<(warmup + samples) {
        let cpuStart = processCPUTime()
        let start = clock.now
        try body(index)
        let end = clock.now
        let cpuEnd = processCPUTime()
        wall.record(end - start)
        cpu.record(cpuEnd - cpuStart)
    }
    return Timing(wall: wall.summary, cpu: cpu.summary)
}

/// Prints one row per timing and one column group per size: wall p50, p99, max and CPU p50, in ms.
func printTimingTable(title: String, sizes: [Int], rows: [(String, [Timing])]) {
    var header1 = [title]
    var header2 = [""]
    for size in sizes {
        header1 += ["N=\(grouped(size))", "", "", ""]
        header2 += ["p50", "p99", "max", "CPU p50"]
    }
    let cells = rows.map { name, timings in
        [name] + timings.flatMap { [millis($0.wall.p50), millis($0.wall.p99), millis($0.wall.max), millis($0.cpu.p50)] }
    }
    printTable([header1, header2], cells)
}
