import AlarmHardware
import Glibc
internal import CALSA

/// One open ALSA playback PCM: interleaved signed 16-bit little-endian, non-blocking.
///
/// Not `Sendable`, on purpose: it is opened, written, dropped and closed on its playback's writer
/// thread only, because an alsa-lib handle must not be used from two threads at once (whether the
/// library locks depends on the plugin and on `LIBASOUND_THREAD_SAFE`). The handle is released in
/// ``close()`` or, failing that, in `deinit`.
final class PCMDevice: PCMStream {
    /// The PCM name, as errors report it.
    let name: String
    /// What the device accepted; the plug layer converts to the hardware behind it.
    let rate: Int
    let channels: Int
    let periodFrames: Int
    let bufferFrames: Int

    private var pcm: OpaquePointer?
    /// The private configuration the PCM was opened from, kept until it is closed.
    private var configuration: OpaquePointer?

    private init(
        name: String, pcm: OpaquePointer, configuration: OpaquePointer?,
        accepted: (rate: Int, channels: Int, period: Int, buffer: Int)
    ) {
        self.name = name
        self.pcm = pcm
        self.configuration = configuration
        (rate, channels, periodFrames, bufferFrames) = accepted
    }

    /// Opens `name` (from `configuration`, ALSA configuration text loaded over the system's, when
    /// given) and configures it for `rate` and `channels` with the given period and buffer.
    ///
    /// The open is non-blocking, so a device held by another program fails at once with `.busy`
    /// instead of waiting for it. The rate and channel count are what ALSA could get nearest.
    /// - Throws: ``HardwareError`` naming `name`: `.deviceUnavailable` (ENOENT, ENODEV, ENXIO),
    ///   `.busy` (EBUSY) or `.io`.
    static func open(
        name: String, configuration text: String?, rate: Int, channels: Int,
        periodMicroseconds: Int, bufferMicroseconds: Int
    ) throws(HardwareError) -> PCMDevice {
        var configuration: OpaquePointer?
        var handle: OpaquePointer?
        let result: Int32
        if let text {
            configuration = try loadConfiguration(text, device: name)
            // SAFETY: the configuration tree stays alive until after snd_pcm_close.
            result = snd_pcm_open_lconf(&handle, name, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK, configuration)
        } else {
            result = snd_pcm_open(&handle, name, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
        }
        guard result >= 0, let handle else {
            if let configuration { snd_config_delete(configuration) }
            throw .alsa(result < 0 ? result : -EIO, device: name)
        }
        do {
            let accepted = try configure(
                handle, name: name, rate: rate, channels: channels,
                periodMicroseconds: periodMicroseconds, bufferMicroseconds: bufferMicroseconds)
            return PCMDevice(name: name, pcm: handle, configuration: configuration, accepted: accepted)
        } catch {
            _ = snd_pcm_close(handle)
            if let configuration { snd_config_delete(configuration) }
            throw error
        }
    }

    deinit {
        close()
    }

    /// Discards what is queued (the sound stops now) and closes the PCM. Harmless twice.
    /// The corresponding C functions are `snd_pcm_drop` and `snd_pcm_close`.
    func close() {
        if let pcm {
            _ = snd_pcm_drop(pcm)
            _ = snd_pcm_close(pcm)
            self.pcm = nil
        }
        if let configuration {
            snd_config_delete(configuration)
            self.configuration = nil
        }
    }

    // MARK: - Writing

    /// Frames that can be written now, or a negative errno. The corresponding C function is
    /// `snd_pcm_avail_update`.
    func availableFrames() -> Int {
        guard let pcm else { return -Int(EBADFD) }
        return snd_pcm_avail_update(pcm)
    }

    /// Writes `frames` interleaved frames from `samples`; the frames written, or a negative errno
    /// (`-EAGAIN` when the buffer is full). The corresponding C function is `snd_pcm_writei`.
    func write(_ samples: [Int16], frames: Int) -> Int {
        guard let pcm else { return -Int(EBADFD) }
        precondition(frames * channels <= samples.count, "writing past the render buffer")
        // SAFETY: the buffer holds at least `frames` frames of `channels` samples for the call.
        return samples.withUnsafeBytes { snd_pcm_writei(pcm, $0.baseAddress, snd_pcm_uframes_t(frames)) }
    }

    /// Starts a prepared stream that has not reached its start threshold (a sound shorter than the
    /// buffer, or a buffer that ended between periods). The corresponding C function is `snd_pcm_start`.
    func startIfPrepared() {
        guard let pcm, snd_pcm_state(pcm) == SND_PCM_STATE_PREPARED else { return }
        _ = snd_pcm_start(pcm)
    }

    /// Whether the stream is running (started and not stopped by an error).
    var isRunning: Bool {
        guard let pcm else { return false }
        return snd_pcm_state(pcm) == SND_PCM_STATE_RUNNING
    }

    /// Frames queued but not yet heard, or a negative errno. The corresponding C function is `snd_pcm_delay`.
    func delay() -> Int {
        guard let pcm else { return -Int(EBADFD) }
        var frames: snd_pcm_sframes_t = 0
        let result = snd_pcm_delay(pcm, &frames)
        return result < 0 ? Int(result) : frames
    }

    /// Recovers from an underrun (`-EPIPE`) or an interrupted call; returns 0, or the error that
    /// could not be recovered from. The corresponding C function is `snd_pcm_recover`.
    func recover(_ error: Int) -> Int {
        guard let pcm else { return -Int(EBADFD) }
        return Int(snd_pcm_recover(pcm, Int32(error), 1))
    }

    /// Resumes after a system suspend: 0, `-EAGAIN` while the hardware is still waking, or another
    /// negative errno. The corresponding C function is `snd_pcm_resume`.
    func resume() -> Int {
        guard let pcm else { return -Int(EBADFD) }
        return Int(snd_pcm_resume(pcm))
    }

    /// Prepares the stream again after an error. The corresponding C function is `snd_pcm_prepare`.
    func prepare() -> Int {
        guard let pcm else { return -Int(EBADFD) }
        return Int(snd_pcm_prepare(pcm))
    }

    // MARK: - Waiting

    /// Blocks until the device can take a period, `wakeDescriptor` is readable, or the timeout.
    /// The corresponding C functions are `snd_pcm_poll_descriptors` and `snd_pcm_poll_descriptors_revents`.
    func wait(wakeDescriptor: Int32, timeoutMilliseconds: Int32) -> PCMReadiness {
        guard let pcm else { return .error(-Int(EBADFD)) }
        let count = Int(max(snd_pcm_poll_descriptors_count(pcm), 0))
        var descriptors = [pollfd](repeating: pollfd(fd: -1, events: 0, revents: 0), count: count + 1)
        // SAFETY: the array has room for `count` descriptors ahead of the wake descriptor.
        let filled = Int(max(snd_pcm_poll_descriptors(pcm, &descriptors, UInt32(count)), 0))
        descriptors[filled] = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptors, nfds_t(filled + 1), timeoutMilliseconds)
        if ready < 0 { return errno == EINTR ? .ready : .error(-Int(errno)) }
        if descriptors[filled].revents & Int16(POLLIN) != 0 { return .woken }
        if ready == 0 || filled == 0 { return .ready }
        var events: UInt16 = 0
        let translated = snd_pcm_poll_descriptors_revents(pcm, &descriptors, UInt32(filled), &events)
        if translated < 0 { return .error(Int(translated)) }
        guard events & UInt16(POLLERR | POLLHUP | POLLNVAL) != 0 else { return .ready }
        switch snd_pcm_state(pcm) {
        case SND_PCM_STATE_XRUN: return .error(-Int(EPIPE))
        case SND_PCM_STATE_SUSPENDED: return .error(-Int(ESTRPIPE))
        case SND_PCM_STATE_DISCONNECTED: return .error(-Int(ENODEV))
        default: return .ready
        }
    }

    // MARK: - Opening

    /// The system configuration with `text` loaded over it, so that a private definition (a board
    /// profile's device, a test's file plugin) can still use the system's `hw`, `plug` and cards.
    private static func loadConfiguration(_ text: String, device: String) throws(HardwareError) -> OpaquePointer {
        var system: OpaquePointer?
        var result = snd_config_update_ref(&system)
        guard result >= 0, let system else { throw .alsa(result, device: device) }
        defer { snd_config_unref(system) }
        var top: OpaquePointer?
        result = snd_config_copy(&top, system)
        guard result >= 0, let top else { throw .alsa(result, device: device) }
        var input: OpaquePointer?
        // SAFETY: snd_input_buffer_open copies the text; the pointer is used only during the call.
        result = text.withCString { snd_input_buffer_open(&input, $0, text.utf8.count) }
        guard result >= 0, let input else {
            snd_config_delete(top)
            throw .alsa(result, device: device)
        }
        result = snd_config_load(top, input)
        snd_input_close(input)
        guard result >= 0 else {
            snd_config_delete(top)
            throw .alsa(result, device: device)
        }
        return top
    }

    private static func configure(
        _ pcm: OpaquePointer, name: String, rate: Int, channels: Int,
        periodMicroseconds: Int, bufferMicroseconds: Int
    ) throws(HardwareError) -> (rate: Int, channels: Int, period: Int, buffer: Int) {
        var hardware: OpaquePointer?
        var result = snd_pcm_hw_params_malloc(&hardware)
        guard result >= 0, let hardware else { throw .alsa(result, device: name) }
        defer { snd_pcm_hw_params_free(hardware) }
        var direction: Int32 = 0
        var acceptedChannels = UInt32(channels)
        var acceptedRate = UInt32(rate)
        var periodTime = UInt32(periodMicroseconds)
        var bufferTime = UInt32(bufferMicroseconds)
        func check(_ result: Int32) throws(HardwareError) {
            if result < 0 { throw .alsa(result, device: name) }
        }
        try check(snd_pcm_hw_params_any(pcm, hardware))
        try check(snd_pcm_hw_params_set_access(pcm, hardware, SND_PCM_ACCESS_RW_INTERLEAVED))
        try check(snd_pcm_hw_params_set_format(pcm, hardware, SND_PCM_FORMAT_S16_LE))
        try check(snd_pcm_hw_params_set_channels_near(pcm, hardware, &acceptedChannels))
        try check(snd_pcm_hw_params_set_rate_near(pcm, hardware, &acceptedRate, &direction))
        // Small periods so the writer comes round often; a buffer that rides out a busy moment.
        // Neither decides how fast a stop is heard: stop drops whatever is queued.
        try check(snd_pcm_hw_params_set_period_time_near(pcm, hardware, &periodTime, &direction))
        try check(snd_pcm_hw_params_set_buffer_time_near(pcm, hardware, &bufferTime, &direction))
        try check(snd_pcm_hw_params(pcm, hardware))
        var bufferSize: snd_pcm_uframes_t = 0
        var periodSize: snd_pcm_uframes_t = 0
        snd_pcm_hw_params_get_buffer_size(hardware, &bufferSize)
        snd_pcm_hw_params_get_period_size(hardware, &periodSize, &direction)
        guard bufferSize > 0, periodSize > 0 else { throw HardwareError(.io, device: name) }

        var software: OpaquePointer?
        result = snd_pcm_sw_params_malloc(&software)
        guard result >= 0, let software else { throw .alsa(result, device: name) }
        defer { snd_pcm_sw_params_free(software) }
        try check(snd_pcm_sw_params_current(pcm, software))
        // Start once two periods are queued, not the whole buffer: the sound begins after two
        // writes instead of eight, and the writer tops the buffer up while the first plays. A
        // shorter sound is started by hand at its end.
        try check(snd_pcm_sw_params_set_start_threshold(pcm, software, min(bufferSize, 2 * periodSize)))
        try check(snd_pcm_sw_params_set_avail_min(pcm, software, periodSize))
        try check(snd_pcm_sw_params(pcm, software))
        return (Int(acceptedRate), Int(acceptedChannels), Int(periodSize), Int(bufferSize))
    }
}

extension HardwareError {
    /// The error for a negative ALSA result (`-errno`) on `device`.
    static func alsa(_ result: some BinaryInteger, device: String) -> HardwareError {
        let code = Int32(clamping: 0 - Int(clamping: result))
        let kind: Kind = switch code {
        case ENOENT, ENODEV, ENXIO: .deviceUnavailable
        case EBUSY: .busy
        default: .io
        }
        return HardwareError(kind, device: device, errno: code)
    }
}
