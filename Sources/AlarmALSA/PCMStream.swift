import AlarmHardware

/// One open playback PCM, as a playback's writer thread drives it: interleaved signed 16-bit,
/// non-blocking. ``PCMDevice`` is alsa-lib's.
///
/// Results are ALSA's: a count, or a negative errno. Not `Sendable`: a stream is opened, written
/// and closed on one writer thread.
protocol PCMStream: AnyObject {
    /// The PCM name, as errors report it.
    var name: String { get }
    /// What the device accepted, which may differ from what was asked.
    var rate: Int { get }
    var channels: Int { get }
    var periodFrames: Int { get }
    var bufferFrames: Int { get }
    /// Whether the stream is running (started and not stopped by an error).
    var isRunning: Bool { get }

    /// Frames that can be written now, or a negative errno.
    func availableFrames() -> Int
    /// Writes `frames` interleaved frames from `samples`: the frames written, or a negative errno
    /// (`-EAGAIN` when the buffer is full, `-ENODEV` when the card is gone).
    func write(_ samples: [Int16], frames: Int) -> Int
    /// Starts a prepared stream that has not reached its start threshold.
    func startIfPrepared()
    /// Frames queued but not yet heard, or a negative errno.
    func delay() -> Int
    /// Recovers from an underrun (`-EPIPE`) or an interrupted call: 0, or the error that stays.
    func recover(_ error: Int) -> Int
    /// Resumes after a system suspend: 0, `-EAGAIN` while the hardware wakes, or a negative errno.
    func resume() -> Int
    /// Prepares the stream again after an error: 0 or a negative errno.
    func prepare() -> Int
    /// Blocks until the device can take a period, `wakeDescriptor` is readable, or the timeout.
    func wait(wakeDescriptor: Int32, timeoutMilliseconds: Int32) -> PCMReadiness
    /// Discards what is queued (the sound stops now) and closes the stream. Harmless twice.
    func close()
}

/// What ``PCMStream/wait(wakeDescriptor:timeoutMilliseconds:)`` saw.
enum PCMReadiness {
    /// The device can take data, or the time ran out: look again.
    case ready
    /// The wake descriptor fired: a stop was requested.
    case woken
    /// The device reported an error; the payload is the errno to recover from, as a negative.
    case error(Int)
}

/// Opens playback streams by name: ``ALSAPCMOpener`` (alsa-lib) on every board. The one seam
/// between ``ALSAAudioOutput``'s playback logic (threads, pacing, recovery, faults) and the
/// library, so that logic can be exercised against streams that fail as real cards do.
protocol PCMOpener: Sendable {
    /// Opens `name` for `rate` and `channels` with the given period and buffer; `configuration`
    /// is ALSA configuration text loaded over the system's for this open only.
    /// - Throws: ``HardwareError`` naming `name`: `.deviceUnavailable`, `.busy` or `.io`.
    func open(
        name: String, configuration: String?, rate: Int, channels: Int,
        periodMicroseconds: Int, bufferMicroseconds: Int
    ) throws(HardwareError) -> any PCMStream
}

/// alsa-lib's `snd_pcm_open`, through ``PCMDevice/open(name:configuration:rate:channels:periodMicroseconds:bufferMicroseconds:)``.
struct ALSAPCMOpener: PCMOpener {
    func open(
        name: String, configuration: String?, rate: Int, channels: Int,
        periodMicroseconds: Int, bufferMicroseconds: Int
    ) throws(HardwareError) -> any PCMStream {
        try PCMDevice.open(
            name: name, configuration: configuration, rate: rate, channels: channels,
            periodMicroseconds: periodMicroseconds, bufferMicroseconds: bufferMicroseconds)
    }
}
