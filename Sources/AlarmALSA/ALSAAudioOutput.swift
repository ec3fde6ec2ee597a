import AlarmHardware
import AlarmTime
import Glibc
import LinuxSupport
import Synchronization

/// Plays alarm sounds through ALSA: the ``AudioOutput`` of a real board.
///
/// Each playback gets a pthread of its own that opens the device, writes a period at a time and
/// closes it; nothing blocks Swift's cooperative pool. Sound is written as signed 16-bit at the
/// sound's own rate and channel count (the built-in tone at 48 kHz mono); `default` and
/// `plughw:` devices convert to what the card takes.
///
/// - Important: A bare `hw:` device converts nothing: a sound file at a rate the card cannot play
///   is refused (`.io`), and the built-in tone is generated at whatever rate the card offers.
public final class ALSAAudioOutput: AudioOutput, Sendable {
    /// The period and buffer sizes asked of ALSA (it picks the nearest it can do): 20 ms periods
    /// in a 160 ms buffer, enough to ride out a busy moment on a Pi, while a stop is heard at once
    /// whatever the buffer (it drops what is queued).
    public static let periodMicroseconds = 20_000
    public static let bufferMicroseconds = 160_000

    /// The ALSA PCM name, e.g. `"default"`, `"plughw:CARD=Headphones"`.
    public let device: String
    /// ALSA configuration text loaded over the system's configuration when opening ``device``.
    public let configuration: String?

    private let diagnostics: @Sendable (String) -> Void
    private let current = Mutex<PlaybackSession?>(nil)
    private let feed = EventFeed<HardwareError>()
    private let pcm: any PCMOpener
    private let counters = WriterCounters()

    /// What the writer threads have done since this output was made, for tests and measurements:
    /// device opens, successful `snd_pcm_writei` calls and their frames, and sleeps (one wake-up each).
    public struct Statistics: Hashable, Sendable {
        public var opens: Int
        public var writes: Int
        public var frames: Int
        public var waits: Int
    }

    public var statistics: Statistics {
        Statistics(
            opens: counters.opens.load(ordering: .relaxed), writes: counters.writes.load(ordering: .relaxed),
            frames: counters.frames.load(ordering: .relaxed), waits: counters.waits.load(ordering: .relaxed))
    }

    /// An output on `device`. `configuration` (a board profile's device definitions, a test's
    /// `file` plugin) applies to this output only, not the process. `diagnostics` gets one line
    /// per thing worth logging (ALSA's own messages, a refused file, a recovered underrun, a
    /// fault) on the writer thread, and must not block.
    public convenience init(
        device: String = "default", configuration: String? = nil, diagnostics: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.init(device: device, configuration: configuration, diagnostics: diagnostics, pcm: ALSAPCMOpener())
    }

    /// An output whose devices `pcm` opens.
    init(
        device: String, configuration: String?, diagnostics: @escaping @Sendable (String) -> Void, pcm: any PCMOpener
    ) {
        _ = ALSAMessages.routed
        self.device = device
        self.configuration = configuration
        self.diagnostics = diagnostics
        self.pcm = pcm
    }

    deinit {
        current.withLock { $0 }?.requestStop()
    }

    /// Starts `source`, replacing anything playing, and returns once the device is open and the
    /// first period has been written (or at once, if a concurrent ``stop()`` ended it first).
    ///
    /// `.file` plays a sound file (WAV, FLAC, Ogg Vorbis, Opus, MP3; mono or stereo, 8 to
    /// 192 kHz), decoded as it plays, its opening when the playback is prepared. The gain ramp
    /// is applied to the samples and measured in frames played. A playback that does not loop
    /// ends by itself after its last frame has been heard; see ``waitUntilIdle()``.
    ///
    /// - Throws: ``HardwareError``: `.deviceUnavailable` (no such device or card), `.busy` (held
    ///   by another program) or `.io`, naming ``device``; or `.io` naming the file's path when
    ///   it cannot be read or decoded (the reason goes to the diagnostics), so the caller can fall back to
    ///   the built-in tone. After a throw nothing plays: what played before was stopped.
    public func play(_ source: SoundSource, gain: GainRamp, looping: Bool) async throws {
        let go = PlaybackSession.Go(gain: gain, looping: looping)
        // Prepared for this sound and still waiting: its device is open, it writes at once.
        if let prepared = current.withLock({ $0 }), prepared.preparedSource == source, prepared.claim(go) {
            try await prepared.started()
            return
        }
        let session = try PlaybackSession.playing(device: device, go)
        await start(session, source: source, hold: .zero)
        try await session.started()
    }

    /// Loads `source` and opens the device for it now, so that a `play` of it within `duration`
    /// writes its first period at once; unclaimed, the device closes after `duration`. Does
    /// nothing while something plays or this is already prepared; a failure is left for the play
    /// to report.
    public func prepare(_ source: SoundSource, for duration: Duration) async {
        if let current = current.withLock({ $0 }), !current.isFinished {
            // Playing, or prepared for this sound already: left alone. Prepared for another: replaced.
            if !current.isWaitingForClaim || current.preparedSource == source { return }
        }
        guard let session = try? PlaybackSession.prepared(device: device, for: source) else { return }
        await start(session, source: source, hold: duration)
    }

    private func start(_ session: PlaybackSession, source: SoundSource, hold: Duration) async {
        let previous = current.withLock { current in
            defer { current = session }
            return current
        }
        // The device is opened only once the previous playback has closed it: a `hw:` device
        // can be open only once, and a file plugin would have two writers.
        await previous?.stop()
        let request = PlaybackRequest(
            device: device, configuration: configuration, source: source, hold: hold,
            pcm: pcm, counters: counters)
        let feed = self.feed, diagnostics = self.diagnostics
        // Writing PCM blocks in poll: a thread of its own, never the cooperative pool.
        let created = DetachedThread.start {
            PlaybackWriter.run(request, session: session, failures: feed, diagnostics: diagnostics)
        }
        if created != 0 {
            session.reportStart(HardwareError(.io, device: device, errno: created))
            session.markFinished()
        }
    }

    /// Whether the device opens now for 48 kHz mono playback (`nil`), else why not. Opens and
    /// closes it at once, non-blocking, so a busy device answers `.busy` at once.
    public func probe() -> HardwareError? {
        do {
            let stream = try pcm.open(
                name: device, configuration: configuration, rate: 48_000, channels: 1,
                periodMicroseconds: Self.periodMicroseconds, bufferMicroseconds: Self.bufferMicroseconds)
            stream.close()
            return nil
        } catch {
            return error
        }
    }

    /// Stops playback: the writer is woken at once and drops what is queued (`snd_pcm_drop`, not
    /// `snd_pcm_drain`), then closes the device; this returns after the close. Harmless when
    /// nothing plays.
    public func stop() async {
        let previous = current.withLock { current in
            defer { current = nil }
            return current
        }
        await previous?.stop()
    }

    /// Suspends until nothing plays: a sound that does not loop has been heard to its end, a
    /// stop closed the device, or a fault ended playback. Returns at once when nothing plays.
    public func waitUntilIdle() async {
        await current.withLock { $0 }?.finished()
    }

    /// A new stream of faults that ended playback after it began (the card disappeared, an
    /// unrecoverable I/O error). Each fault arrives once on every stream; an underrun is not a
    /// fault (it is recovered from).
    public func failures() -> AsyncStream<HardwareError> {
        feed.subscribe()
    }
}
