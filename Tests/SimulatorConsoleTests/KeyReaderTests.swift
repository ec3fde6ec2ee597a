import Glibc
@testable import SimulatorConsole
import Synchronization
import Testing

/// The key reader on a pipe: a real thread, fed by the test; no sleeps.
@Suite(.timeLimit(.minutes(5))) struct KeyReaderTests {
    /// Both ends of a pipe, closed at the end of the test.
    final class Pipe: Sendable {
        let readEnd: Int32
        private let writeEnd = Mutex<Int32>(-1)

        init() throws {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            readEnd = ends[0]
            writeEnd.withLock { $0 = ends[1] }
        }

        deinit {
            close(readEnd)
            closeWriteEnd()
        }

        func write(_ text: String) {
            let bytes = Array(text.utf8)
            writeEnd.withLock { descriptor in
                _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            }
        }

        func closeWriteEnd() {
            writeEnd.withLock { descriptor in
                if descriptor >= 0 { close(descriptor) }
                descriptor = -1
            }
        }
    }

    @Test func keysArriveInOrderAndTheEndOfInputQuits() async throws {
        let input = try Pipe()
        var keys = KeyReader.keys(from: input.readEnd).makeAsyncIterator()
        input.write("s\u{1B}[A")
        #expect(await keys.next() == .shortPress(.stop))
        input.write("Z")
        #expect(await keys.next() == .longPress(.snooze))
        input.closeWriteEnd()
        #expect(await keys.next() == .quit)
        #expect(await keys.next() == nil)
    }

    @Test func aLoneEscapeTimesOutSoTheNextLetterCounts() async throws {
        let input = try Pipe()
        let (events, observer) = AsyncStream.makeStream(of: KeyReader.ReaderEvent.self)
        var keys = KeyReader.keys(from: input.readEnd, observer: { observer.yield($0) }).makeAsyncIterator()
        var readerEvents = events.makeAsyncIterator()
        input.write("\u{1B}")
        #expect(await readerEvents.next() == .escapeAbandoned)  // after KeyReader.escapeTimeout
        input.write("z")  // not Alt-z: the Escape key is done with
        #expect(await keys.next() == .shortPress(.snooze))
    }

    @Test func theThreadStopsWhenTheConsumerGoesAway() async throws {
        let input = try Pipe()
        let (events, observer) = AsyncStream.makeStream(of: KeyReader.ReaderEvent.self)
        let consumer = Task {
            for await _ in KeyReader.keys(from: input.readEnd, observer: { observer.yield($0) }) {}
        }
        consumer.cancel()
        var readerEvents = events.makeAsyncIterator()
        #expect(await readerEvents.next() == .threadExited)  // it left its poll with no input at all
        _ = await consumer.value
    }
}
