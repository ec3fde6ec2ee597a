import AlarmKitCore
import AlarmTestKit
import FoundationEssentials
import Glibc
import LinuxSupport
import Testing

@testable import AlarmClient
@testable import AlarmControl
@testable import AlarmProtocol

/// ``ControlClient`` holds the daemon to strict JSON too: a line that is not ends the connection,
/// and the request waiting for it fails saying why, instead of being read leniently.
@Suite(.timeLimit(.minutes(5)))
struct ClientStrictnessTests {
    /// A daemon that answers one request with `reply(id)`, written by the test: a listening Unix
    /// socket, one connection accepted on a thread of its own.
    final class ScriptedDaemon: Sendable {
        let directory: TemporaryDirectory
        let path: String
        private let listener: Int32

        init() throws {
            directory = try TemporaryDirectory()
            path = directory.path + "/control.sock"
            listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0, listen(listener, 4) == 0 else { throw ControlSocketError("listen", path: path, errno: errno) }
        }

        deinit {
            close(listener)
        }

        /// Accepts one connection, reads one request line and answers it with `reply(id)`.
        func answerOneRequest(_ reply: @escaping @Sendable (Int64) -> [UInt8]) async {
            let listener = self.listener
            await DetachedThread.run {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                defer { close(connection) }
                var request: [UInt8] = []
                var byte: UInt8 = 0
                while read(connection, &byte, 1) == 1, byte != 0x0A { request.append(byte) }
                let id = (try? JSONDecoder().decode(JSONValue.self, from: Data(request)))?["id"]?.integerValue ?? 0
                let answer = reply(id) + [0x0A]
                _ = answer.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                // Held open until the client closes it: the client, not the end of the stream,
                // must be what ends the exchange.
                while read(connection, &byte, 1) == 1 {}
            }
        }
    }

    static func hello(_ id: Int64, trailer: String) -> [UInt8] {
        Array(#"{"v":1,"id":\#(id),"ok":true,"result":{"protocol":1,"server":"alarmd","version":"x","uid":0,"gid":0,"admin":false,"maximumRequestSize":65536}\#(trailer)}"#.utf8)
    }

    @Test(arguments: [
        (",", "a trailing comma before }"),
        (#","ok":true"#, #"the member name "ok" a second time"#),
        (#","note":"\q""#, #"the invalid escape \q"#),
        (",\"note\":\"\u{1B}[2J\"", "the control character U+001B unescaped"),
    ])
    func aLineThatIsNotStrictJSONEndsTheConnection(trailer: String, problem: String) async throws {
        let daemon = try ScriptedDaemon()
        let client = ControlClient(path: daemon.path)
        async let served: Void = daemon.answerOneRequest { Self.hello($0, trailer: trailer) }
        let error = await #expect(throws: AlarmOperationError.self) { try await client.hello() }
        client.close()
        await served
        guard case .serviceUnavailable(let reason)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("alarmd sent a line that is not valid JSON ("), "\(reason)")
        #expect(reason.contains(problem), "\(reason)")
    }

    @Test func theSameAnswerInStrictJSONIsRead() async throws {
        let daemon = try ScriptedDaemon()
        let client = ControlClient(path: daemon.path)
        async let served: Void = daemon.answerOneRequest { Self.hello($0, trailer: "") }
        let hello = try await client.hello()
        client.close()
        await served
        #expect(hello.server == "alarmd" && hello.maximumRequestSize == 65536)
    }
}
