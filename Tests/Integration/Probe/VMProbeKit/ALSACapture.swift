import Glibc
internal import CALSA
internal import CALSAShim

/// One open ALSA capture PCM: interleaved signed 16-bit little-endian, non-blocking.
///
/// Not `Sendable`: an alsa-lib handle must be used from one thread; the recorder opens, reads
/// and closes it on the main thread. The handle is released in ``close()`` or, failing that,
/// in `deinit`.
public final class ALSACapture {
    public let name: String
    public let rate: Int
    public let channels: Int
    public let periodFrames: Int
    public let bufferFrames: Int
    private var pcm: OpaquePointer?

    private init(name: String, pcm: OpaquePointer, rate: Int, channels: Int, periodFrames: Int, bufferFrames: Int) {
        self.name = name
        self.pcm = pcm
        self.rate = rate
        self.channels = channels
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
    }

    /// Opens `name` for capture with exactly `rate` and `channels` (snd-aloop forces the
    /// playback side's parameters on the capture side, so a mismatch is an error, not a
    /// conversion), periods near `periodMicroseconds` and a buffer near `bufferMicroseconds`.
    /// - Throws: ``ProbeError`` `cannot open capture device NAME: <reason>` or
    ///   `cannot configure capture device NAME (<step>): <reason>`.
    public static func open(
        name: String, rate: Int = CaptureFiles.sampleRate, channels: Int = 1,
        periodMicroseconds: Int = 5_000, bufferMicroseconds: Int = 100_000
    ) throws(ProbeError) -> ALSACapture {
        _ = alarmd_alsa_route_errors()
        var handle: OpaquePointer?
        let result = snd_pcm_open(&handle, name, SND_PCM_STREAM_CAPTURE, SND_PCM_NONBLOCK)
        guard result >= 0, let handle else {
            throw ProbeError("cannot open capture device \(name): \(describe(result < 0 ? result : -EIO))")
        }
        do {
            let (period, buffer) = try configure(handle, name: name, rate: rate, channels: channels,
                periodMicroseconds: periodMicroseconds, bufferMicroseconds: bufferMicroseconds)
            return ALSACapture(name: name, pcm: handle, rate: rate, channels: channels, periodFrames: period, bufferFrames: buffer)
        } catch {
            _ = snd_pcm_close(handle)
            throw error
        }
    }

    deinit {
        close()
    }

    /// Stops capturing and closes the PCM; harmless twice. The corresponding C functions are
    /// `snd_pcm_drop` and `snd_pcm_close`.
    public func close() {
        guard let pcm else { return }
        _ = snd_pcm_drop(pcm)
        _ = snd_pcm_close(pcm)
        self.pcm = nil
    }

    /// Starts capturing now; 0 or a negative errno. The corresponding C function is `snd_pcm_start`.
    public func start() -> Int {
        guard let pcm else { return -Int(EBADFD) }
        return Int(snd_pcm_start(pcm))
    }

    /// Waits up to `timeoutMilliseconds` for a period: 1 ready, 0 timeout, or a negative errno
    /// (`-EPIPE` after an overrun, `-EINTR` after a signal). The corresponding C function is `snd_pcm_wait`.
    public func wait(timeoutMilliseconds: Int32) -> Int {
        guard let pcm else { return -Int(EBADFD) }
        return Int(snd_pcm_wait(pcm, timeoutMilliseconds))
    }

    /// Reads up to `frames` frames into `buffer` (which must hold `frames * channels` samples):
    /// the frames read, `-EAGAIN` when none are ready, or another negative errno. The
    /// corresponding C function is `snd_pcm_readi`.
    public func read(into buffer: inout [Int16], frames: Int) -> Int {
        guard let pcm else { return -Int(EBADFD) }
        precondition(buffer.count >= frames * channels, "reading past the buffer")
        // SAFETY: the buffer holds at least `frames` frames for the duration of the call.
        return buffer.withUnsafeMutableBytes { snd_pcm_readi(pcm, $0.baseAddress, snd_pcm_uframes_t(frames)) }
    }

    /// Frames captured and not yet read, or a negative errno. The corresponding C function is
    /// `snd_pcm_delay`, which first brings the hardware pointer up to date.
    public func delay() -> Int {
        guard let pcm else { return -Int(EBADFD) }
        var frames: snd_pcm_sframes_t = 0
        let result = snd_pcm_delay(pcm, &frames)
        return result < 0 ? Int(result) : frames
    }

    /// Recovers from an overrun (`-EPIPE`), a suspend or an interruption: 0, or the error that
    /// could not be recovered from. The corresponding C function is `snd_pcm_recover`.
    public func recover(_ error: Int) -> Int {
        guard let pcm else { return -Int(EBADFD) }
        return Int(snd_pcm_recover(pcm, Int32(error), 1))
    }

    /// `<strerror>` plus ALSA's own message for the last failure on this thread, if any.
    static func describe(_ result: some BinaryInteger) -> String {
        var text = String(cString: snd_strerror(Int32(result)))
        var buffer = [CChar](repeating: 0, count: 512)
        // SAFETY: the buffer's capacity is passed along with it.
        let length = alarmd_alsa_take_message(&buffer, buffer.count)
        if length > 0 {
            text += " (" + String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) + ")"
        }
        return text
    }

    private static func configure(
        _ pcm: OpaquePointer, name: String, rate: Int, channels: Int, periodMicroseconds: Int, bufferMicroseconds: Int
    ) throws(ProbeError) -> (period: Int, buffer: Int) {
        func check(_ result: Int32, _ step: String) throws(ProbeError) {
            if result < 0 { throw ProbeError("cannot configure capture device \(name) (\(step)): \(describe(result))") }
        }
        var hardware: OpaquePointer?
        try check(snd_pcm_hw_params_malloc(&hardware), "hw_params")
        guard let hardware else { throw ProbeError("cannot configure capture device \(name): out of memory") }
        defer { snd_pcm_hw_params_free(hardware) }
        var direction: Int32 = 0
        var periodTime = UInt32(periodMicroseconds)
        var bufferTime = UInt32(bufferMicroseconds)
        try check(snd_pcm_hw_params_any(pcm, hardware), "any")
        try check(snd_pcm_hw_params_set_access(pcm, hardware, SND_PCM_ACCESS_RW_INTERLEAVED), "interleaved access")
        try check(snd_pcm_hw_params_set_format(pcm, hardware, SND_PCM_FORMAT_S16_LE), "format S16_LE")
        try check(snd_pcm_hw_params_set_channels(pcm, hardware, UInt32(channels)), "\(channels) channel(s)")
        try check(snd_pcm_hw_params_set_rate(pcm, hardware, UInt32(rate), 0), "rate \(rate)")
        try check(snd_pcm_hw_params_set_period_time_near(pcm, hardware, &periodTime, &direction), "period time")
        try check(snd_pcm_hw_params_set_buffer_time_near(pcm, hardware, &bufferTime, &direction), "buffer time")
        try check(snd_pcm_hw_params(pcm, hardware), "hw_params")
        var bufferSize: snd_pcm_uframes_t = 0
        var periodSize: snd_pcm_uframes_t = 0
        snd_pcm_hw_params_get_buffer_size(hardware, &bufferSize)
        snd_pcm_hw_params_get_period_size(hardware, &periodSize, &direction)
        guard bufferSize > 0, periodSize > 0 else { throw ProbeError("cannot configure capture device \(name): no period size") }

        var software: OpaquePointer?
        try check(snd_pcm_sw_params_malloc(&software), "sw_params")
        guard let software else { throw ProbeError("cannot configure capture device \(name): out of memory") }
        defer { snd_pcm_sw_params_free(software) }
        try check(snd_pcm_sw_params_current(pcm, software), "sw_params")
        try check(snd_pcm_sw_params_set_avail_min(pcm, software, periodSize), "avail_min")
        try check(snd_pcm_sw_params(pcm, software), "sw_params")
        return (Int(periodSize), Int(bufferSize))
    }
}
