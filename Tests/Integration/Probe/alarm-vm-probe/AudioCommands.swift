import ArgumentParser
import VMProbeKit

struct RecordAudio: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record-audio",
        abstract: "Record an ALSA capture device until SIGTERM or SIGINT.",
        discussion: """
            Captures S16_LE, 48000 Hz, mono (what snd-aloop forces to match alarmd's playback) in \
            periods of about 5 ms with a buffer of about 100 ms. Writes DIR/capture.s16 (raw \
            samples), DIR/capture.times (per read: `FIRST_FRAME_INDEX REALTIME_SECONDS`, the instant \
            that read's first frame was captured, from CLOCK_REALTIME when the read returned less \
            the frames still buffered and the frames read; `xrun REALTIME_SECONDS` after an \
            overrun was recovered from) and, once the first period is on disk, the empty file \
            DIR/ready. Files are flushed at least every 50 ms. On SIGTERM or SIGINT it flushes, \
            prints one JSON summary line and exits 0.
            """)

    @Option(help: "The ALSA capture device.")
    var device = "hw:Loopback,1,0"

    @Option(help: "The directory to write into (created if missing).")
    var out: String

    func run() throws {
        StopSignal.install()
        let summary = try AudioRecorder.record(device: device, directory: out)
        output(summary.json)
    }
}

struct Sound: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "When sound started after an instant, and its frequency and level.",
        discussion: """
            Judges 5 ms windows from --after: first_sound is the first sample above the threshold \
            in the first window of a run of at least two sounding windows. frequency_hz is the \
            dominant frequency (100-8000 Hz) of the sounding windows, peak_dbfs the peak of the \
            range, rms_dbfs the RMS of the sounding windows.
            """)

    @Argument(help: "The directory record-audio writes into.")
    var directory: String

    @OptionGroup var range: RangeOptions
    @OptionGroup var threshold: ThresholdOption

    func run() throws {
        let analysis = AudioAnalysis(capture: try Capture.load(directory: directory), thresholdDB: threshold.thresholdDB)
        output(analysis.sound(after: range.after.instant, before: range.before?.instant).json)
    }
}

struct Silence: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "From when the capture stays silent until --before (or its end).",
        discussion: """
            silent_from is just after the last sample above the threshold in the last sounding \
            5 ms window of the range (or --after itself when nothing sounds), so the tone's own \
            gaps and pauses never count as its end. silent is true when the silence from there to \
            the end of the range (until) lasts at least --min seconds.
            """)

    @Argument(help: "The directory record-audio writes into.")
    var directory: String

    @OptionGroup var range: RangeOptions
    @OptionGroup var threshold: ThresholdOption

    @Option(name: .customLong("min"), help: "Seconds the final silence must last.")
    var minimum = SecondsArgument(nanoseconds: 1_500_000_000)

    func run() throws {
        let analysis = AudioAnalysis(capture: try Capture.load(directory: directory), thresholdDB: threshold.thresholdDB)
        output(analysis.silence(after: range.after.instant, before: range.before?.instant, minimumSeconds: minimum.seconds).json)
    }
}
