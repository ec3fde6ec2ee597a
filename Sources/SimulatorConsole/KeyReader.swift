import Glibc
import LinuxSupport

/// Reads keys from a terminal (or any descriptor) on a thread of its own, so the blocking `read`
/// never holds a thread of Swift's cooperative pool.
///
/// The stream ends after a ``SimulatorKey/quit`` for the end of the input (or a read error), or
/// when its consumer goes away: the thread then stops too, leaving `descriptor` open.
public enum KeyReader {
    /// How long a lone `ESC` waits for the rest of an escape sequence before it counts as the
    /// Escape key. Terminals send a sequence in one write, so this only matters over slow links.
    public static let escapeTimeout: Duration = .milliseconds(50)

    /// - Important: call it once per descriptor: two readers would split the bytes between them.
    public static func keys(from descriptor: Int32 = STDIN_FILENO) -> AsyncStream<SimulatorKey> {
        keys(from: descriptor, observer: { _ in })
    }

    /// What the reading thread did that tests wait for.
    enum ReaderEvent: Hashable, Sendable {
        /// A lone ESC timed out and counted as the Escape key.
        case escapeAbandoned
        case threadExited
    }

    /// ``keys(from:)``, telling tests what the thread did.
    static func keys(from descriptor: Int32, observer: @escaping @Sendable (ReaderEvent) -> Void) -> AsyncStream<SimulatorKey> {
        let (stream, continuation) = AsyncStream.makeStream(of: SimulatorKey.self)
        guard let wake = EventSignal() else {
            // No descriptor to stop the thread with: no keys rather than a thread that never ends.
            continuation.finish()
            observer(.threadExited)
            return stream
        }
        let reader = Reader(descriptor: descriptor, wake: wake, continuation: continuation, observer: observer)
        continuation.onTermination = { _ in reader.stop() }
        reader.start()
        return stream
    }

    /// The reading thread's state. The wake eventfd is closed when the last of the thread and the
    /// stream's termination handler lets go (``EventSignal``'s `deinit`), so a late ``stop()``
    /// never writes to a reused number.
    private final class Reader: Sendable {
        let descriptor: Int32
        let wake: EventSignal
        let continuation: AsyncStream<SimulatorKey>.Continuation
        let observer: @Sendable (ReaderEvent) -> Void

        init(
            descriptor: Int32, wake: EventSignal, continuation: AsyncStream<SimulatorKey>.Continuation,
            observer: @escaping @Sendable (ReaderEvent) -> Void
        ) {
            self.descriptor = descriptor
            self.wake = wake
            self.continuation = continuation
            self.observer = observer
        }

        func stop() {
            wake.signal()
        }

        func start() {
            let context = Unmanaged.passRetained(self).toOpaque()
            var thread = pthread_t()
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
            defer { pthread_attr_destroy(&attributes) }
            // A static entry point: a closure literal may inherit MainActor isolation and trap when
            // the thread starts.
            if pthread_create(&thread, &attributes, Reader.threadEntry, context) != 0 {
                Unmanaged<Reader>.fromOpaque(context).release()
                continuation.finish()
                observer(.threadExited)
            }
        }

        private static let threadEntry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
            guard let context else { return nil }
            let reader = Unmanaged<Reader>.fromOpaque(context).takeRetainedValue()
            reader.run()
            reader.continuation.finish()
            reader.observer(.threadExited)
            return nil
        }

        private func run() {
            var decoder = KeyDecoder()
            var buffer = [UInt8](repeating: 0, count: 64)
            var descriptors = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0),
            ]
            let (seconds, attoseconds) = KeyReader.escapeTimeout.components
            let escapeMilliseconds = Int32(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
            while true {
                descriptors[0].revents = 0
                descriptors[1].revents = 0
                let timeout = decoder.isInsideEscapeSequence ? escapeMilliseconds : -1
                let ready = poll(&descriptors, 2, timeout)
                if ready < 0 {
                    if errno == EINTR { continue }
                    break
                }
                if ready == 0 {
                    decoder.abandonEscapeSequence()
                    observer(.escapeAbandoned)
                    continue
                }
                if descriptors[1].revents != 0 { return }
                if descriptors[0].revents & Int16(POLLNVAL) != 0 { break }
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    break
                }
                if count == 0 { break }
                for key in decoder.decode(buffer[..<count]) {
                    if case .terminated = continuation.yield(key) { return }
                }
            }
            // The end of the input (or an input that cannot be read): nothing more will come.
            continuation.yield(.quit)
        }
    }
}
