import ArgumentParser
import VMProbeKit

/// A `CLOCK_REALTIME` instant on the command line: decimal seconds.
struct InstantArgument: ExpressibleByArgument {
    let instant: RealtimeInstant

    init?(argument: String) {
        guard let instant = RealtimeInstant(parsing: argument) else { return nil }
        self.instant = instant
    }

    static var defaultValueDescription: String { "SECONDS" }
}

/// A non-negative number of seconds (`0.2`, `1.5`, `3`).
struct SecondsArgument: ExpressibleByArgument {
    let nanoseconds: Int64

    init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    init?(argument: String) {
        guard let value = DecimalText.nanoseconds(fromSeconds: argument), value >= 0 else { return nil }
        nanoseconds = value
    }

    var seconds: Double { Double(nanoseconds) / 1_000_000_000 }

    var defaultValueDescription: String { DecimalText.seconds(nanoseconds: nanoseconds, decimals: 3) }
}

/// A dB threshold, which is negative: parsed unconditionally so `-60` is not taken for an option.
struct ThresholdOption: ParsableArguments {
    @Option(
        name: .customLong("threshold-db"), parsing: .unconditional,
        help: "Level (dBFS RMS of a 5 ms window, full scale 32768) above which a window sounds.")
    var thresholdDB: Double = -60
}

/// `--after T [--before T2]`.
struct RangeOptions: ParsableArguments {
    @Option(help: "Start of the analysed range (realtime seconds).")
    var after: InstantArgument

    @Option(help: "End of the analysed range (realtime seconds); default: the end of the recording.")
    var before: InstantArgument?

    func validate() throws {
        if let before, before.instant < after.instant {
            throw ValidationError("--before \(before.instant.text) is earlier than --after \(after.instant.text)")
        }
    }
}
