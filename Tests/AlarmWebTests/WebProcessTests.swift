import AlarmKitCore
import AlarmTestKit
import Foundation
import Glibc
import LinuxSupport
import Testing
import WebPairings

@testable import AlarmWeb

/// alarm-web as systemd runs it, a process of its own on the rig's control socket, with a phone
/// paired (written into its pairings file), attacked over TCP as the held-out attack did.
@Suite(.timeLimit(.minutes(5))) struct WebProcessTests {
    /// `alarm-web` started for a test, with `openFiles` as its file limit (the unit's LimitNOFILE),
    /// its log read from a pipe.
    final class RunningPage: Sendable {
        static let token = String(repeating: "7", count: 64)
        let pid: pid_t
        let port: UInt16
        /// Its "Serving the clock's page" log line.
        let serving: String
        private let log: Int32

        init(rig: WebRig, openFiles: Int = 1024, arguments: [String] = []) async throws {
            let state = rig.directory.path + "/alarm-web"
            mkdir(state, 0o700)
            try PairingsFile.write(
                [Pairing(id: "phone", name: "Phone", token: Self.token, created: WebRig.start, lastSeen: WebRig.start)], in: state)
            let command = [
                ChildProcess.product("alarm-web"), "--listen", "127.0.0.1:0", "--socket", rig.directory.path + "/control.sock",
                "--state-dir", state, "--files", RepositoryFiles.root + "/web", "--log-level", "notice",
                // The server's deadlines are on the real clock in a process of its own: long
                // enough that no test here meets one, however slowly a busy machine runs it.
                "--idle-timeout", "3600", "--request-timeout", "3600",
            ] + arguments
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw TCPClientError("pipe: errno \(errno)") }
            _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
            posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
            // The shell sets the file limit, then becomes alarm-web.
            pid = try ChildProcess.spawn(
                "/bin/sh", ["-c", "ulimit -n \(openFiles) && exec \"$@\"", "sh"] + command, environment: [:], actions: &actions)
            close(ends[1])
            log = ends[0]
            let line = try #require(await Self.line(from: log, containing: "Serving the clock's page"), "alarm-web did not start")
            serving = line
            // The rest of its log is kept (a full pipe would stop it).
            let kept = rig.directory.path + "/alarm-web.log"
            DetachedThread.start { [log] in
                let file = open(kept, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
                var chunk = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = chunk.withUnsafeMutableBytes { read(log, $0.baseAddress, $0.count) }
                    guard count > 0 else { break }
                    _ = chunk.withUnsafeBytes { write(file, $0.baseAddress, count) }
                }
                close(file)
                close(log)
            }
            let field = try #require(line.split(separator: " ").first { $0.hasPrefix("port=") })
            port = try #require(UInt16(field.dropFirst(5)))
        }

        deinit {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, WNOHANG)
        }

        /// The first line of the log containing `text`; `nil` if the log ends first.
        static func line(from descriptor: Int32, containing text: String) async -> String? {
            await DetachedThread.run {
                var buffer: [UInt8] = []
                var byte: UInt8 = 0
                while read(descriptor, &byte, 1) == 1 {
                    guard byte == UInt8(ascii: "\n") else {
                        buffer.append(byte)
                        continue
                    }
                    let line = String(decoding: buffer, as: UTF8.self)
                    if line.contains(text) { return line }
                    buffer = []
                }
                return nil
            }
        }

        /// SIGTERM, then waits for it to end; its exit status (`nil` if a signal ended it).
        func stop() async -> Int32? {
            kill(pid, SIGTERM)
            return await end()
        }

        /// Waits for it to end on its own; its exit status (`nil` if a signal ended it).
        func end() async -> Int32? {
            await DetachedThread.run { [pid] in
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                return (status & 0x7f) == 0 ? (status >> 8) & 0xff : nil
            }
        }
    }

    /// Destroying alarm-web's listening socket from outside (`ss -K`, the kernel's
    /// SOCK_DESTROY, which needs CAP_NET_ADMIN) makes accepting fail for good.
    @Test(.enabled(if: getuid() == 0, "ss -K needs CAP_NET_ADMIN"))
    func itExitsForSystemdToRestartItWhenItsListeningSocketIsGone() async throws {
        let rig = try await WebRig()
        let page = try await RunningPage(rig: rig)
        let destroyed = try await ChildProcess.run("/usr/bin/env", ["ss", "-K", "-t", "state", "listening", "( sport = :\(page.port) )"])
        try #require(destroyed.exitStatus == 0, "ss -K failed: \(destroyed.standardError)")
        // Not a process that lives on without listening: it exits, non-zero (EX_SOFTWARE).
        #expect(await page.end() == 70)
        await rig.stop()
    }

    @Test func aHostThatIsNotTheClocksIsRefusedBeforeAnyRoute() async throws {
        let rig = try await WebRig()
        let page = try await RunningPage(rig: rig, arguments: ["--host", "clock.example.org"])
        for path in ["/", "/app.js", "/api/state", "/api/pair"] {
            for host in ["evil.example", "evil.example:\(page.port)", "127.0.0.1:\(page.port + 1)", "clock.example.org.evil"] {
                let client = try TCPClient(port: page.port)
                await client.send(TCPClient.request(path == "/api/pair" ? "POST" : "GET", path, port: page.port, host: host, json: path == "/api/pair" ? #"{"name":"x"}"# : nil))
                #expect(try await client.response().status == 421, "\(path) with Host \(host)")
            }
        }
        let hostname = try #require(machineHostName())
        for host in ["127.0.0.1:\(page.port)", "localhost:\(page.port)", "\(hostname):\(page.port)", "clock.example.org"] {
            let client = try TCPClient(port: page.port)
            await client.send(TCPClient.request("GET", "/", port: page.port, host: host))
            #expect(try await client.response().status == 200, "Host \(host)")
        }
        // An absolute target names the host in place of Host (RFC 9112 3.2.2).
        let absolute = try TCPClient(port: page.port)
        await absolute.send("GET http://evil.example/ HTTP/1.1\r\nHost: 127.0.0.1:\(page.port)\r\n\r\n")
        #expect(try await absolute.response().status == 421)
        let missing = try TCPClient(port: page.port)
        await missing.send("GET / HTTP/1.1\r\n\r\n")
        #expect(try await missing.response().status == 400)
        // The Origin of a change is compared with the host that was checked, the target's.
        let json = #"{"seconds":60,"label":"Tea"}"#
        let smuggled = try TCPClient(port: page.port)
        await smuggled.send(
            "POST http://127.0.0.1:\(page.port)/api/timers HTTP/1.1\r\nHost: evil.example\r\nOrigin: http://evil.example\r\n"
                + "Cookie: alarm_session=\(RunningPage.token)\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)")
        #expect(try await smuggled.response().status == 403)
        #expect(await page.stop() == 0)
        await rig.stop()
    }

    @Test func aBodyPastTheLimitIs413BeforeAnyOfItIsSent() async throws {
        let rig = try await WebRig()
        let page = try await RunningPage(rig: rig)
        let client = try TCPClient(port: page.port)
        // The head alone: the answer comes although not one byte of the 512 MiB has been sent.
        await client.send("POST /api/alarms HTTP/1.1\r\nHost: 127.0.0.1:\(page.port)\r\nContent-Type: application/json\r\nContent-Length: 536870912\r\n\r\n")
        let response = try await client.response()
        #expect(response.status == 413)
        #expect(response.headers["connection"] == "close")
        #expect(await page.stop() == 0)
        await rig.stop()
    }

    @Test func aChunkedBodyIsStoppedAsSoonAsItPassesTheLimit() async throws {
        let rig = try await WebRig()
        let page = try await RunningPage(rig: rig)
        let client = try TCPClient(port: page.port)
        // 17 chunks of 1 KiB and no last chunk: the seventeenth passes 16 KiB; nothing more is sent.
        let kibibyte = String(repeating: "x", count: 1024)
        await client.send("POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1:\(page.port)\r\nTransfer-Encoding: chunked\r\n\r\n"
            + String(repeating: "400\r\n\(kibibyte)\r\n", count: 17))
        #expect(try await client.response().status == 413)
        #expect(await page.stop() == 0)
        await rig.stop()
    }

    @Test func aChunkedBodyWhoseFramingOutgrowsTheLimitIsStoppedThough() async throws {
        let rig = try await WebRig()
        let page = try await RunningPage(rig: rig)
        let client = try TCPClient(port: page.port)
        // One-byte chunks behind 1,000-byte extensions: 200 of them are 200 bytes of body, and
        // 200 KB that a server holding the framing until the body ends would keep.
        let extensionText = ";x=" + String(repeating: "e", count: 1000)
        await client.send("POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1:\(page.port)\r\nTransfer-Encoding: chunked\r\n\r\n"
            + String(repeating: "1\(extensionText)\r\nx\r\n", count: 200))
        #expect(try await client.response().status == 413)
        #expect(await page.stop() == 0)
        await rig.stop()
    }

    @Test func malformedFramingIs400AndNeverReachesARoute() async throws {
        let rig = try await WebRig()
        let page = try await RunningPage(rig: rig)
        let origin = "Host: 127.0.0.1:\(page.port)\r\nOrigin: http://127.0.0.1:\(page.port)\r\nContent-Type: application/json\r\n"
        let requests = [
            "POST /api/pair HTTP/1.1\r\n\(origin)Transfer-Encoding: chunked\r\n\r\nzz\r\n",
            "POST /api/pair HTTP/1.1\r\n\(origin)Transfer-Encoding: chunked\r\n\r\nc\r\n{\"name\":\"x\"}X\r\n0\r\n\r\n",
            "POST /api/pair HTTP/1.1\r\n\(origin)Content-Length: 12\r\nContent-Length: 13\r\n\r\n{\"name\":\"x\"}",
            "POST /api/pair HTTP/1.1\r\n\(origin)Content-Length: 12\r\nContent-Length: 12\r\n\r\n{\"name\":\"x\"}",
            "POST /api/pair HTTP/1.1\r\n\(origin)Content-Length: 12\r\nTransfer-Encoding: chunked\r\n\r\nc\r\n{\"name\":\"x\"}\r\n0\r\n\r\n",
            "POST /api/pair HTTP/1.1\r\n\(origin)Content-Length: 12, 12\r\n\r\n{\"name\":\"x\"}",
            "POST /api/pair HTTP/1.1\r\n\(origin)Content-Length: 13\r\n\r\n{\"name\":\"x\"}",  // ends short
        ]
        for (index, request) in requests.enumerated() {
            let client = try TCPClient(port: page.port)
            await client.send(request, closingWrite: index == requests.count - 1)
            #expect(try await client.response().status == 400, "\(request.debugDescription)")
        }
        // Nothing reached the pairing route: no question is open at the clock (a second one
        // would be 409), so a well-formed request now asks.
        let good = try TCPClient(port: page.port)
        await good.send("POST /api/pair HTTP/1.1\r\n\(origin)Transfer-Encoding: chunked\r\n\r\n6\r\n{\"name\r\n6\r\n\":\"x\"}\r\n0\r\n\r\n")
        #expect(try await good.response().status == 201)
        // The question reaches the clock, where it is refused.
        await rig.waitForPairingQuestion()
        await rig.answer(.stop)
        #expect(await page.stop() == 0)
        await rig.stop()
    }

    @Test func aClientThatExpectsContinueIsToldToSendItsBody() async throws {
        let rig = try await WebRig()
        let page = try await RunningPage(rig: rig)
        let json = #"{"seconds":60,"label":"Tea"}"#
        let client = try TCPClient(port: page.port)
        await client.send(
            "POST /api/timers HTTP/1.1\r\nHost: 127.0.0.1:\(page.port)\r\nOrigin: http://127.0.0.1:\(page.port)\r\n"
                + "Cookie: alarm_session=\(RunningPage.token)\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(json.utf8.count)\r\nExpect: 100-continue\r\n\r\n")
        #expect(try await client.response(thenSend: json).status == 100)
        #expect(try await client.response().status == 201)
        let unknown = try TCPClient(port: page.port)
        await unknown.send("POST /api/timers HTTP/1.1\r\nHost: 127.0.0.1:\(page.port)\r\nContent-Length: 5\r\nExpect: telepathy\r\n\r\n")
        #expect(try await unknown.response().status == 417)
        #expect(await page.stop() == 0)
        await rig.stop()
    }

    @Test func aMebibyteHeaderIsRefusedAndAPairedPhoneIsStillAnswered() async throws {
        let rig = try await WebRig()
        let page = try await RunningPage(rig: rig)
        let attacker = try TCPClient(port: page.port)
        // The answer comes while the header is still being sent (the server stops reading at 16 KiB).
        async let sending = attacker.stream(after: "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(page.port)\r\nX-Big: ", UInt8(ascii: "a"), count: 1 << 20)
        #expect(try await attacker.response().status == 431)
        _ = await sending
        let phone = try TCPClient(port: page.port)
        await phone.send(TCPClient.request("GET", "/api/state", port: page.port, cookie: RunningPage.token))
        #expect(try await phone.response().status == 200)
        #expect(await page.stop() == 0)
        await rig.stop()
    }

    @Test func atTheCapTheOldestIdleConnectionIsClosedFirst() async throws {
        let rig = try await WebRig()
        let page = try await RunningPage(rig: rig, arguments: ["--max-connections", "8"])
        // Eight connections that never send anything, taken in in the order they connected.
        let idle = try (0..<8).map { _ in try TCPClient(port: page.port) }
        let newcomer = try TCPClient(port: page.port)
        await newcomer.send(TCPClient.request("GET", "/icon.svg", port: page.port))
        #expect(try await newcomer.response().status == 200)
        #expect(await idle[0].receiveAll().isEmpty)  // closed, with nothing sent
        for client in idle[1...] {
            await client.send(TCPClient.request("GET", "/icon.svg", port: page.port))
            #expect(try await client.response().status == 200)
        }
        #expect(await page.stop() == 0)
        await rig.stop()
    }

    @Test func aBrowsersAnsweredConnectionOutlastsSilentOnesFromItsOwnAddress() async throws {
        let rig = try await WebRig()
        let page = try await RunningPage(rig: rig, arguments: ["--max-connections", "8"])
        let browser = try TCPClient(port: page.port)
        await browser.send(TCPClient.request("GET", "/icon.svg", port: page.port))
        #expect(try await browser.response().status == 200)
        // Eight connections that send nothing: the ninth open one makes room by closing the
        // oldest of them, not the browser's, which is older but has been answered.
        let silent = try (0..<8).map { _ in try TCPClient(port: page.port) }
        #expect(await silent[0].receiveAll().isEmpty)
        await browser.send(TCPClient.request("GET", "/icon.svg", port: page.port))
        #expect(try await browser.response().status == 200)
        #expect(await page.stop() == 0)
        await rig.stop()
    }

    @Test func aFloodFromOneAddressClosesItsOwnConnectionsFirst() async throws {
        let rig = try await WebRig()
        let page = try await RunningPage(rig: rig, arguments: ["--max-connections", "8"])
        let phone = try TCPClient(port: page.port, from: "127.0.0.2")
        await phone.send(TCPClient.request("GET", "/icon.svg", port: page.port))
        #expect(try await phone.response().status == 200)
        var flood: [TCPClient] = []
        for _ in 0..<20 {
            let client = try TCPClient(port: page.port)
            await client.send(TCPClient.request("GET", "/icon.svg", port: page.port))
            #expect(try await client.response().status == 200)
            flood.append(client)
        }
        // The phone's is the oldest connection, but its address has one: the flood's went instead.
        await phone.send(TCPClient.request("GET", "/icon.svg", port: page.port))
        #expect(try await phone.response().status == 200)
        #expect(await page.stop() == 0)
        await rig.stop()
    }

    @Test func aHostKeepingAnsweredConnectionsOpenCannotPushOutAPhonesNewOne() async throws {
        let rig = try await WebRig()
        let page = try await RunningPage(rig: rig, arguments: ["--max-connections", "8"])
        // Another host fills every slot with connections it had answered and keeps open.
        var flood: [TCPClient] = []
        for _ in 0..<8 {
            let client = try TCPClient(port: page.port)
            await client.send(TCPClient.request("GET", "/icon.svg", port: page.port))
            #expect(try await client.response().status == 200)
            flood.append(client)
        }
        // The phone connects; before it has sent its request, the host opens one more.
        let phone = try TCPClient(port: page.port, from: "127.0.0.2")
        let more = try TCPClient(port: page.port)
        await more.send(TCPClient.request("GET", "/icon.svg", port: page.port))
        #expect(try await more.response().status == 200)
        // Room was made from the host's own connections, not by closing the phone's.
        await phone.send(TCPClient.request("GET", "/icon.svg", port: page.port))
        #expect(try await phone.response().status == 200)
        #expect(await page.stop() == 0)
        await rig.stop()
    }

    @Test func anEventStreamEndsWhenItsClientGoesAway() async throws {
        let rig = try await WebRig()
        let page = try await RunningPage(rig: rig)
        let stream = try TCPClient(port: page.port)
        await stream.send(TCPClient.request("GET", "/api/events", port: page.port, cookie: RunningPage.token))
        let head = try await stream.response()
        #expect(head.status == 200 && head.headers["transfer-encoding"] == "chunked")
        // The client is done: the server notices at once, not at the next event, and closes.
        shutdown(stream.descriptor, Int32(SHUT_WR))
        _ = await stream.receiveAll()
        #expect(await page.stop() == 0)
        await rig.stop()
    }

    @Test func twoThousandIdleConnectionsLeaveThePageAnsweringAPairedPhone() async throws {
        raiseOpenFileLimit()
        let rig = try await WebRig()
        // The unit's file limit; without a cap, accept failed at about 1,011 connections and the
        // page stopped listening for good.
        let page = try await RunningPage(rig: rig, openFiles: 1024)
        #expect(page.serving.contains("connections.max=512"))
        let idle = try (0..<2000).map { _ in try TCPClient(port: page.port) }
        let phone = try TCPClient(port: page.port)
        await phone.send(TCPClient.request("GET", "/api/state", port: page.port, cookie: RunningPage.token))
        let answer = try await phone.response()
        #expect(answer.status == 200)
        #expect(answer.text.contains("\"pairings\""))
        // The oldest were closed to make room.
        #expect(await idle[0].receiveAll().isEmpty)
        #expect(await page.stop() == 0)
        await rig.stop()
    }

    @Test func sigtermStopsItDuringAFloodOfHugeHeaders() async throws {
        let rig = try await WebRig()
        let page = try await RunningPage(rig: rig)
        // Sixteen connections each sending a 1 MiB header (1.6 s of CPU each, and growing with
        // the square of the size, in the page's first server), and an idle one.
        let flood = try (0..<16).map { _ in try TCPClient(port: page.port) }
        let idle = try TCPClient(port: page.port)
        await withTaskGroup(of: Void.self) { group in
            for client in flood {
                group.addTask {
                    await client.stream(after: "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(page.port)\r\nX-Big: ", UInt8(ascii: "a"), count: 1 << 20)
                }
            }
            for client in flood { group.addTask { _ = await client.receiveAll() } }
        }
        let phone = try TCPClient(port: page.port)
        await phone.send(TCPClient.request("GET", "/api/state", port: page.port, cookie: RunningPage.token))
        #expect(try await phone.response().status == 200)
        #expect(await page.stop() == 0)
        #expect(await idle.receiveAll().isEmpty)
        await rig.stop()
    }
}
