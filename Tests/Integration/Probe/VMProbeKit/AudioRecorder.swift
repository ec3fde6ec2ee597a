import Glibc

/// `record-audio`: captures from an ALSA device into `capture.s16` and `capture.times` until
/// asked to stop.
///
/// Each read is at most one period (about 5 ms); its line in `capture.times` gives the instant
/// its first frame was captured, ``firstFrameInstant(readReturned:delayFrames:framesRead:rate:)``.
/// Files are flushed every 50 ms, so an analysis during the recording sees recent data. Overruns
/// are recovered from and logged as `xrun` lines.
public enum AudioRecorder {
    /// What a recording did, for the JSON line at the end.
    public struct Summary: Sendable {
        public var device: String
        public var frames = 0
        public var periods = 0
        public var xruns = 0
        public var periodFrames = 0
        public var bufferFrames = 0
        public var started: RealtimeInstant?
        public var stopped: RealtimeInstant?

        public var json: JSONObject {
            var object = JSONObject()
            object.set("device", .string(device))
            object.set("frames", .integer(frames))
            object.set("seconds", .number(Double(frames) / Double(CaptureFiles.sampleRate), decimals: 3))
            object.set("periods", .integer(periods))
            object.set("xruns", .integer(xruns))
            object.set("period_frames", .integer(periodFrames))
            object.set("buffer_frames", .integer(bufferFrames))
            object.set("started", .instant(started))
            object.set("stopped", .instant(stopped))
            return object
        }
    }

    /// The instant the first of `framesRead` frames was captured: the realtime clock when the
    /// read returned, less the frames still waiting in the buffer (`delayFrames`, measured
    /// before the clock was read so the estimate can only be late) and the frames read.
    public static func firstFrameInstant(readReturned now: RealtimeInstant, delayFrames: Int, framesRead: Int, rate: Int) -> RealtimeInstant {
        RealtimeInstant(nanoseconds: now.nanoseconds - CaptureTimeline.nanoseconds(frames: max(0, delayFrames) + framesRead, rate: rate))
    }

    /// Records from `device` into `directory` (created if missing; earlier files there are
    /// replaced) until `StopSignal.requested`.
    /// - Throws: ``ProbeError`` when the device cannot be opened or configured, a file cannot be
    ///   written, or the device fails in a way `snd_pcm_recover` cannot fix (what was captured
    ///   until then is flushed first).
    public static func record(device: String, directory: String) throws(ProbeError) -> Summary {
        try FileIO.makeDirectory(directory)
        unlink(directory + "/" + CaptureFiles.ready)  // a marker left by an earlier recording
        let capture = try ALSACapture.open(name: device)
        defer { capture.close() }
        let samplesFile = try AppendFile(creating: directory + "/" + CaptureFiles.samples)
        let timesFile = try AppendFile(creating: directory + "/" + CaptureFiles.times)
        var summary = Summary(device: device, periodFrames: capture.periodFrames, bufferFrames: capture.bufferFrames)
        var buffer = [Int16](repeating: 0, count: capture.periodFrames)
        var ready = false
        var lastFlush = SystemClock.read(CLOCK_MONOTONIC)
        var failure: ProbeError?

        func flush() throws(ProbeError) {
            try samplesFile.flush()  // samples first: a times line never refers to frames not on disk
            try timesFile.flush()
            lastFlush = SystemClock.read(CLOCK_MONOTONIC)
        }

        /// Recovers from `error`; false (with `failure` set) when that is impossible.
        func recover(_ error: Int) -> Bool {
            if error == -Int(EINTR) || error == -Int(EAGAIN) { return true }
            let result = capture.recover(error)
            guard result >= 0 else {
                failure = ProbeError("capture device \(device) failed: \(ALSACapture.describe(error))")
                return false
            }
            _ = capture.start()
            summary.xruns += 1
            timesFile.appendLine(CaptureTimesEntry.xrun(.now()).line)
            return true
        }

        let started = capture.start()
        guard started >= 0 else { throw ProbeError("cannot start capture on \(device): \(ALSACapture.describe(started))") }
        summary.started = .now()
        loop: while !StopSignal.requested {
            let waited = capture.wait(timeoutMilliseconds: 100)
            if waited < 0 && !recover(waited) { break loop }
            while !StopSignal.requested {
                let count = capture.read(into: &buffer, frames: capture.periodFrames)
                if count == -Int(EAGAIN) || count == 0 { break }
                if count < 0 {
                    if !recover(count) { break loop }
                    break
                }
                let delay = capture.delay()
                let now = RealtimeInstant.now()
                let first = firstFrameInstant(readReturned: now, delayFrames: delay, framesRead: count, rate: capture.rate)
                samplesFile.append(Capture.bytes(of: buffer[0..<count]))
                timesFile.appendLine(CaptureTimesEntry.period(firstFrame: summary.frames, instant: first).line)
                summary.frames += count
                summary.periods += 1
                if !ready {
                    try flush()
                    try FileIO.createEmpty(directory + "/" + CaptureFiles.ready)
                    ready = true
                }
            }
            if SystemClock.read(CLOCK_MONOTONIC) - lastFlush >= 50_000_000 { try flush() }
        }
        summary.stopped = .now()
        try samplesFile.close()
        try timesFile.close()
        if let failure { throw failure }
        return summary
    }
}

extension FileIO {
    /// Creates `path` empty (or truncates it).
    /// - Throws: ``ProbeError`` `cannot create PATH: <reason>`.
    public static func createEmpty(_ path: String) throws(ProbeError) {
        let file = try AppendFile(creating: path)
        try file.close()
    }
}
