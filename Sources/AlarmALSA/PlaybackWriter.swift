import AlarmHardware
import AlarmSoundFile
import Glibc
import Synchronization

/// What one playback needs on its writer thread.
struct PlaybackRequest: Sendable {
    var device: String
    var configuration: String?
    var source: SoundSource
    /// How long a prepared playback keeps the device open waiting for its claim.
    var hold: Duration = .zero
    /// Where the device is opened: alsa-lib, on a board.
    var pcm: any PCMOpener
    var counters: WriterCounters
}

/// Counts what writer threads do, for ``ALSAAudioOutput/statistics``.
final class WriterCounters: Sendable {
    let opens = Atomic<Int>(0)
    let writes = Atomic<Int>(0)
    let frames = Atomic<Int>(0)
    let waits = Atomic<Int>(0)
}

/// A playback's whole life on its own thread: load the sound, open and configure the device,
/// write until the end, a stop or a fault, then drop and close.
///
/// Everything that touches the PCM runs here, so no ALSA call ever races another. A stop reaches
/// this thread through the session's eventfd, which every wait polls beside the PCM.
struct PlaybackWriter {
    private let request: PlaybackRequest
    private let session: PlaybackSession
    private let diagnostics: @Sendable (String) -> Void

    /// Runs the playback to its end on the calling thread; reports its start and its end through
    /// `session`, and a fault after the start on `failures`.
    static func run(
        _ request: PlaybackRequest, session: PlaybackSession, failures: EventFeed<HardwareError>,
        diagnostics: @escaping @Sendable (String) -> Void
    ) {
        let writer = PlaybackWriter(request: request, session: session, diagnostics: diagnostics)
        defer {
            writer.forwardALSAMessage()
            session.markFinished()
        }
        guard !session.isStopRequested else { return }
        let holdDeadline = monotonicSeconds() + request.hold / .seconds(1)
        let opened: (device: any PCMStream, feed: any SampleFeed)
        do throws(HardwareError) {
            opened = try writer.open()
            request.counters.opens.add(1, ordering: .relaxed)
        } catch {
            writer.forwardALSAMessage()
            // A prepared playback nobody claimed just ends: the play that comes opens afresh and
            // meets (and reports) whatever is wrong then. A claimed one fails its play.
            if session.preparedSource == nil || session.abandonUnlessClaimed() != nil { session.reportStart(error) }
            return
        }
        guard let go = session.waitForGo(until: holdDeadline) else {
            opened.device.close()
            return
        }
        let renderer = FrameRenderer(
            feed: opened.feed, deviceChannels: opened.device.channels, gain: go.gain, looping: go.looping)
        var loop = WriteLoop(
            device: opened.device, renderer: renderer, session: session, counters: request.counters,
            diagnostics: diagnostics)
        let outcome = loop.run()
        loop.device.close()
        if case .failed(let failure) = outcome {
            writer.forwardALSAMessage()
            diagnostics("\(failure): playback ended by a device error")
            // A fault before the first frame is the play's own failure; after it, the stream's.
            if !session.reportStart(failure) { failures.send(failure) }
        }
    }

    /// How much of a sound file is decoded when it is opened, before its playback is claimed:
    /// more than the two periods the device starts on, so the alarm's first sound waits for no
    /// decoder (an MP3's first frames cost its decoder's start-up).
    static let decodedAheadSeconds = 0.5

    /// Opens the sound (decoding a file's opening) and the device for it.
    private func open() throws(HardwareError) -> (device: any PCMStream, feed: any SampleFeed) {
        var feed: any SampleFeed
        switch request.source {
        case .builtInTone:
            feed = MemoryFeed(.builtInTone(sampleRate: 48_000))
        case .file(let path):
            do throws(SoundFileError) {
                let reader = try SoundFileReader(path: path)
                try reader.requireAlarmSoundShape()
                feed = try FileFeed(reader, decodingAhead: Int(Self.decodedAheadSeconds * Double(reader.sampleRate)))
            } catch {
                diagnostics("\(error)")
                throw HardwareError(.io, device: path, errno: error.errno)
            }
        }
        let device = try request.pcm.open(
            name: request.device, configuration: request.configuration,
            rate: feed.sampleRate, channels: feed.channels,
            periodMicroseconds: ALSAAudioOutput.periodMicroseconds,
            bufferMicroseconds: ALSAAudioOutput.bufferMicroseconds)
        if device.rate != feed.sampleRate {
            guard case .builtInTone = request.source else {
                // `default` and `plughw:` resample; a bare `hw:` may not, and playing a file at the
                // wrong rate would change its pitch. Refuse, so the appliance falls back to the tone.
                diagnostics("\(request.device): cannot play \(feed.sampleRate) Hz (nearest \(device.rate) Hz)")
                device.close()
                throw HardwareError(.io, device: request.device, errno: EINVAL)
            }
            feed = MemoryFeed(.builtInTone(sampleRate: device.rate))
        }
        return (device, feed)
    }

    private func forwardALSAMessage() {
        if let message = ALSAMessages.take() { diagnostics("ALSA: \(message)") }
    }
}

/// The write loop proper, with the state it keeps between periods.
struct WriteLoop {
    enum Outcome {
        case finished, stopped
        case failed(HardwareError)
    }

    let device: any PCMStream
    private var renderer: FrameRenderer
    private let session: PlaybackSession
    private let counters: WriterCounters
    private let diagnostics: @Sendable (String) -> Void
    private var buffer: [Int16] = []
    private var framesWritten = 0
    /// When the first frame was written, on CLOCK_MONOTONIC.
    private var pacingStart: Double?

    /// How much faster than real time the writer may run, on devices that take data as fast as it
    /// comes (ALSA's `null` and `file` plugins), so a looping alarm does not write gigabytes. The
    /// slack keeps it from holding back a card whose crystal runs a little fast.
    private static let pacingSlack = 1.01

    init(
        device: any PCMStream, renderer: FrameRenderer, session: PlaybackSession, counters: WriterCounters,
        diagnostics: @escaping @Sendable (String) -> Void
    ) {
        self.device = device
        self.renderer = renderer
        self.session = session
        self.counters = counters
        self.diagnostics = diagnostics
    }

    mutating func run() -> Outcome {
        while true {
            if session.isStopRequested { return .stopped }
            if renderer.isFinished { return playOut() }
            let chunk: Int
            do throws(SoundFileError) {
                chunk = try renderer.nextChunk(limit: device.periodFrames)
            } catch {
                return fileFailed(error)
            }
            if let excess = framesAheadOfClock(after: chunk), excess > 0 {
                waitForStop(seconds: Double(excess) / (Double(device.rate) * Self.pacingSlack))
                continue
            }
            let available = device.availableFrames()
            if available < 0 {
                if let failure = recover(from: available) { return .failed(failure) }
                continue
            }
            if available < chunk {
                // A full buffer that has not started yet (its end fell between periods).
                device.startIfPrepared()
                if let failure = waitForDevice() { return .failed(failure) }
                continue
            }
            do throws(SoundFileError) {
                try renderer.render(into: &buffer, frames: chunk)
            } catch {
                return fileFailed(error)
            }
            let written = device.write(buffer, frames: chunk)
            if written < 0 {
                if let failure = recover(from: written) { return .failed(failure) }
                continue
            }
            if pacingStart == nil { pacingStart = monotonicSeconds() }
            framesWritten += written
            counters.writes.add(1, ordering: .relaxed)
            counters.frames.add(written, ordering: .relaxed)
            renderer.advance(by: written)
            session.reportStart(nil)
        }
    }

    /// A sound file that stops decoding while it plays: the playback ends with a fault naming the
    /// file, and the appliance plays the built-in tone in its place.
    private func fileFailed(_ error: SoundFileError) -> Outcome {
        diagnostics("\(error)")
        return .failed(HardwareError(.io, device: error.path, errno: error.errno))
    }

    /// Lets the last buffer of a sound that does not loop be heard, then ends. A stop cuts it short.
    private mutating func playOut() -> Outcome {
        device.startIfPrepared()
        let rate = Double(device.rate)
        let bufferSeconds = Double(device.bufferFrames) / rate
        let deadline = monotonicSeconds() + 2 * bufferSeconds + 0.05  // whatever a device reports about its delay
        let pacedEnd = pacingStart.map { $0 + Double(framesWritten) / rate }
        while true {
            if session.isStopRequested { return .stopped }
            let delay = device.delay()
            if delay < 0, delay != -Int(EPIPE) {  // an underrun here only means all was played
                if let failure = recover(from: delay) { return .failed(failure) }
            }
            let now = monotonicSeconds()
            var remaining = delay > 0 && device.isRunning ? Double(delay) / rate : 0
            if let pacedEnd { remaining = max(remaining, pacedEnd - now) }
            remaining = min(remaining, deadline - now)
            if remaining <= 0 { return .finished }
            waitForStop(seconds: min(remaining, 0.02))
        }
    }

    /// How many frames past the pacing limit the device would hold after writing `chunk` more.
    private func framesAheadOfClock(after chunk: Int) -> Int? {
        guard let pacingStart else { return nil }
        let allowed = (monotonicSeconds() - pacingStart) * Double(device.rate) * Self.pacingSlack + Double(device.bufferFrames)
        return framesWritten + chunk - Int(allowed)
    }

    /// Handles a negative ALSA result; returns the failure that ends playback, if it does.
    private func recover(from error: Int) -> HardwareError? {
        switch Int32(-error) {
        case EAGAIN:
            return waitForDevice()
        case ESTRPIPE:
            return resumeAfterSuspend()
        default:
            let result = device.recover(error)
            if result < 0 { return .alsa(result, device: device.name) }
            if error == -Int(EPIPE) { diagnostics("\(device.name): underrun, recovered") }
            return nil
        }
    }

    /// After a system suspend: resume the stream, waiting (stoppably) while the hardware wakes.
    /// `snd_pcm_recover` would do the same but sleep a second at a time, deaf to a stop.
    private func resumeAfterSuspend() -> HardwareError? {
        while !session.isStopRequested {
            let result = device.resume()
            if result == -Int(EAGAIN) {
                waitForStop(seconds: 0.01)
                continue
            }
            if result < 0 {
                let prepared = device.prepare()
                if prepared < 0 { return .alsa(prepared, device: device.name) }
            }
            return nil
        }
        return nil
    }

    /// Waits until the device can take a period or a stop is requested.
    private func waitForDevice() -> HardwareError? {
        counters.waits.add(1, ordering: .relaxed)
        let timeout = Int32(max(4 * device.bufferFrames * 1000 / device.rate, 100))
        switch device.wait(wakeDescriptor: session.wake.descriptor, timeoutMilliseconds: timeout) {
        case .ready, .woken: return nil
        case .error(let error): return recover(from: error)
        }
    }

    /// Sleeps up to `seconds`, waking at once if a stop is requested.
    private func waitForStop(seconds: Double) {
        counters.waits.add(1, ordering: .relaxed)
        _ = session.sleepUntilWoken(seconds: seconds)
    }
}
