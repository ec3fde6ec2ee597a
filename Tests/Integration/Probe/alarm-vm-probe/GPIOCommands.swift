import ArgumentParser
import VMProbeKit

struct Press: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Press a simulated active-low button: pull-down, hold, pull-up.",
        discussion: """
            Writes `pull-down` to the gpio-sim line's pull attribute, notes CLOCK_REALTIME right \
            after the write returned (pressed_at), sleeps --hold seconds, writes `pull-up` \
            (released_at). --long holds 3 s, beyond alarmd's default 2 s long press.
            """)

    @Option(help: "The line's pull attribute, /sys/devices/platform/gpio-sim.0/gpiochipN/sim_gpioK/pull.")
    var pull: String

    @Option(help: "Seconds to hold the button down.")
    var hold: SecondsArgument?

    @Flag(help: "A long press: hold for 3 s (unless --hold says otherwise).")
    var long = false

    func run() throws {
        let hold = hold?.nanoseconds ?? (long ? 3_000_000_000 : 200_000_000)
        StopSignal.install()  // SIGTERM during the hold releases the button before exiting
        output(try ButtonPress.press(pullPath: pull, holdNanoseconds: hold).json)
    }
}

struct RecordLED: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record-led",
        abstract: "Sample an LED line until SIGTERM or SIGINT, writing its changes.",
        discussion: """
            Reads the gpio-sim value attribute every --interval seconds and writes \
            `REALTIME_SECONDS LEVEL` lines: the first is the initial level, each later one a \
            change; every line is flushed. On SIGTERM or SIGINT it adds `# end REALTIME_SECONDS`, \
            prints one JSON summary line and exits 0.
            """)

    @Option(help: "The line's value attribute, .../sim_gpioK/value (\"0\" or \"1\").")
    var value: String

    @Option(help: "The file to write.")
    var out: String

    @Option(help: "Seconds between samples.")
    var interval = SecondsArgument(nanoseconds: 5_000_000)

    func validate() throws {
        if interval.nanoseconds < 100_000 { throw ValidationError("--interval must be at least 0.0001 s") }
    }

    func run() throws {
        StopSignal.install()
        output(try LEDRecorder.record(valuePath: value, outPath: out, intervalNanoseconds: interval.nanoseconds).json)
    }
}

struct LED: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "led",
        abstract: "What an LED recording did between two instants.",
        discussion: """
            The range ends at --before, else at the recording's `# end` line, else now. pattern is \
            off or on when the level never changed in the range (or changed once: the level it \
            settled to), blink after two changes or more. period_ms is the median time between \
            rising edges (null below two), high_ms the median length of complete high pulses.
            """)

    @Argument(help: "The file record-led writes.")
    var file: String

    @OptionGroup var range: RangeOptions

    func run() throws {
        let recording = try LEDRecording.parse(try FileIO.readText(file), path: file)
        output(recording.analyse(after: range.after.instant, before: range.before?.instant, now: .now()).json)
    }
}

struct WaitFile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait-file",
        abstract: "Wait until a path exists (exit 0) or the timeout passes (exit 1).")

    @Argument(help: "The path to wait for.")
    var path: String

    @Option(help: "Seconds to wait at most.")
    var timeout: SecondsArgument

    func run() throws {
        guard let waited = FileWait.wait(for: path, timeoutNanoseconds: timeout.nanoseconds) else {
            throw ProbeError("\(path) did not appear within \(DecimalText.seconds(nanoseconds: timeout.nanoseconds, decimals: 3)) s")
        }
        var object = JSONObject()
        object.set("path", .string(path))
        object.set("waited_ms", .number(Double(waited) / 1_000_000, decimals: 1))
        output(object)
    }
}
