@testable import AlarmALSA
import AlarmHardware

/// alsa-lib's opener, watched: every device it opens is announced on ``opens`` once it is
/// configured, and with a ``WriteFailure`` every stream it opens fails its writes the way a card
/// that goes away does, while all else stays the real device's, so that the writer's own recovery
/// must give up and report the error.
final class WatchedPCMOpener: PCMOpener {
    /// From `afterFrames` frames written on, every write returns `-errno`, as alsa-lib's
    /// `snd_pcm_writei` does after a USB card is unplugged (`ENODEV`).
    struct WriteFailure: Sendable {
        var afterFrames: Int
        var errno: Int32
    }

    /// One element per device opened, in order.
    let opens: AsyncStream<Void>
    private let opened: AsyncStream<Void>.Continuation
    private let failure: WriteFailure?

    init(failure: WriteFailure? = nil) {
        (opens, opened) = AsyncStream.makeStream()
        self.failure = failure
    }

    /// Suspends until the next device is open.
    func nextOpen() async {
        for await _ in opens { return }
    }

    func open(
        name: String, configuration: String?, rate: Int, channels: Int,
        periodMicroseconds: Int, bufferMicroseconds: Int
    ) throws(HardwareError) -> any PCMStream {
        let stream = try ALSAPCMOpener().open(
            name: name, configuration: configuration, rate: rate, channels: channels,
            periodMicroseconds: periodMicroseconds, bufferMicroseconds: bufferMicroseconds)
        opened.yield()
        guard let failure else { return stream }
        return FailingPCMStream(stream, failure: failure)
    }
}

/// A real stream whose writes fail from a given frame on (see ``WatchedPCMOpener/WriteFailure``).
private final class FailingPCMStream: PCMStream {
    private let device: any PCMStream
    private let failure: WatchedPCMOpener.WriteFailure
    private var framesWritten = 0

    init(_ device: any PCMStream, failure: WatchedPCMOpener.WriteFailure) {
        self.device = device
        self.failure = failure
    }

    func write(_ samples: [Int16], frames: Int) -> Int {
        guard framesWritten < failure.afterFrames else { return -Int(failure.errno) }
        let written = device.write(samples, frames: frames)
        if written > 0 { framesWritten += written }
        return written
    }

    var name: String { device.name }
    var rate: Int { device.rate }
    var channels: Int { device.channels }
    var periodFrames: Int { device.periodFrames }
    var bufferFrames: Int { device.bufferFrames }
    var isRunning: Bool { device.isRunning }
    func availableFrames() -> Int { device.availableFrames() }
    func startIfPrepared() { device.startIfPrepared() }
    func delay() -> Int { device.delay() }
    func recover(_ error: Int) -> Int { device.recover(error) }
    func resume() -> Int { device.resume() }
    func prepare() -> Int { device.prepare() }
    func wait(wakeDescriptor: Int32, timeoutMilliseconds: Int32) -> PCMReadiness {
        device.wait(wakeDescriptor: wakeDescriptor, timeoutMilliseconds: timeoutMilliseconds)
    }
    func close() { device.close() }
}
