import AlarmSimulator
import FoundationEssentials
import Glibc
import LinuxSupport
import Testing

@testable import AlarmControl
@testable import AlarmProtocol

/// A connection's output over one end of a socket pair, written by hand (`flush()`, as the
/// server's I/O thread does) and read at the other end.
@Suite struct ControlConnectionTests {
    final class Pair {
        let connection: ControlConnection
        let peer: Int32
        /// The connection's end.
        let own: Int32

        init(outputLimit: Int) throws {
            var fds: [Int32] = [0, 0]
            try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
            own = fds[0]
            peer = fds[1]
            _ = fcntl(own, F_SETFL, fcntl(own, F_GETFL) | O_NONBLOCK)
            let peerIdentity = ControlPeer(uid: 1000, gid: 1000, pid: 1, isAdministrator: false)
            connection = ControlConnection(
                id: 1, fd: own, peer: peerIdentity, outputLimit: outputLimit, waker: try EventSignal.wakingPoll(),
                clock: ManualWallClock(now: Date(timeIntervalSince1970: 0)))
        }

        deinit {
            close(own)
            close(peer)
        }

        /// Everything the connection has written so far.
        func received() -> [UInt8] {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while case .done(let count) = buffer.withUnsafeMutableBytes({ UnixSocket.receive(peer, into: $0) }), count > 0 {
                bytes += buffer[0..<count]
            }
            return bytes
        }
    }

    @Test func linesSentWhileAnAnswerIsUnfinishedFollowItsLine() async throws {
        let pair = try Pair(outputLimit: 1024)
        #expect(await pair.connection.sendAnswer(Array(#"{"id":1,"result":[1,"#.utf8), complete: false))
        pair.connection.send(Array(#"{"event":"alarms"}"#.utf8) + [10])
        #expect(pair.connection.flush() == nil)
        #expect(await pair.connection.sendAnswer(Array("2]}\n".utf8), complete: true))
        pair.connection.send(Array(#"{"id":2}"#.utf8) + [10])
        #expect(pair.connection.flush() == nil)
        #expect(String(decoding: pair.received(), as: UTF8.self) == "{\"id\":1,\"result\":[1,2]}\n{\"event\":\"alarms\"}\n{\"id\":2}\n")
        #expect(pair.connection.isQuiescent)
    }

    @Test func answersAreNotHeldToTheOutputBoundButOtherLinesAre() async throws {
        let pair = try Pair(outputLimit: 100)
        #expect(await pair.connection.sendAnswer([UInt8](repeating: 0x20, count: 10_000) + [10], complete: true))
        let event = [UInt8](repeating: 0x20, count: 59) + [10]
        pair.connection.send(event)
        #expect(pair.connection.flush() == nil)
        // Written: the next line fits again; unread, two lines pass the bound.
        #expect(pair.received().count == 10_001 + 60)
        pair.connection.send(event)
        pair.connection.send(event)
        #expect(pair.connection.flush() == .outputOverflow)
    }

    @Test func linesWaitingForAnAnswerCountAgainstTheBound() async throws {
        let pair = try Pair(outputLimit: 100)
        #expect(await pair.connection.sendAnswer(Array("[".utf8), complete: false))
        pair.connection.send([UInt8](repeating: 0x20, count: 59) + [10])
        pair.connection.send([UInt8](repeating: 0x20, count: 59) + [10])
        #expect(pair.connection.flush() == .outputOverflow)
        // Once it must close, the answer's writer stops.
        pair.connection.markClosed()
        #expect(await pair.connection.sendAnswer(Array("]\n".utf8), complete: true) == false)
    }

    @Test func anAbandonedAnswerClosesTheConnectionAtOnce() async throws {
        let pair = try Pair(outputLimit: 100)
        #expect(await pair.connection.sendAnswer(Array("[1,".utf8), complete: false))
        pair.connection.abandonAnswer()
        #expect(pair.connection.flush() == .unencodableAnswer)
    }

    @Test func theBufferCountsOnlyWhatIsHeldToItsBoundAsItIsWritten() throws {
        let pair = try Pair(outputLimit: 0)
        // A small socket buffer, so that each write takes part of what waits.
        var size: Int32 = 4096
        try #require(setsockopt(pair.own, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size)) == 0)
        var buffer = OutputBuffer(limit: 10)
        buffer.appendUncounted([UInt8](repeating: 1, count: 100_000))
        let appended = buffer.append([UInt8](repeating: 2, count: 10))
        buffer.appendUncounted([UInt8](repeating: 3, count: 5))
        let overBound = buffer.append([2])
        #expect(appended && !overBound)
        #expect(buffer.count == 100_015 && buffer.countedCount == 10 && buffer.uncountedCount == 100_005)
        var received: [UInt8] = []
        while !buffer.isEmpty {
            let failure = buffer.write(to: pair.own)
            #expect(failure == nil)
            // What is written goes from the front: the counted bytes wait until the answer before them is out.
            if buffer.count > 15 { #expect(buffer.countedCount == 10 && buffer.uncountedCount == buffer.count - 10) }
            received += pair.received()
        }
        #expect(buffer.countedCount == 0 && buffer.uncountedCount == 0)
        #expect(received == [UInt8](repeating: 1, count: 100_000) + [UInt8](repeating: 2, count: 10) + [UInt8](repeating: 3, count: 5))
        let appendedAgain = buffer.append([UInt8](repeating: 2, count: 10))
        #expect(appendedAgain)
    }
}
