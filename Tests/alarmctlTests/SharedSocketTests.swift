import AlarmClient
import AlarmEngine
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTestKit
import FoundationEssentials
import Glibc
import LinuxSupport
import Testing

/// One user cannot deny the control socket to the others: not with alarm records past the bound on
/// a client's unread output, nor by holding every connection with subscriptions.
@Suite(.timeLimit(.minutes(3)))
struct SharedSocketTests {
    static let mallory: (uid: UInt32, gid: UInt32) = (65533, 65534)

    /// A connection as another user that subscribes and then reads nothing more.
    struct HeldConnection {
        let fd: Int32
        /// Set when the daemon refused the connection: its error message.
        let refusal: String?

        /// Connects as `user` and asks for `count` authorization subscriptions; returns once each
        /// is answered, or the daemon refused the connection.
        static func subscribe(_ count: Int, as user: (uid: UInt32, gid: UInt32), socket: String) async throws -> HeldConnection {
            let fd = try UnixSocket.connect(to: socket, uid: user.uid, gid: user.gid)
            let requests = Array((1...count).map { "{\"v\":1,\"id\":\($0),\"op\":\"subscribeAuthorization\"}\n" }.joined().utf8)
            let refusal = await DetachedThread.run { () -> String? in
                var output = OutputBuffer(limit: requests.count)
                _ = output.append(requests)
                // A connection refused is closed at once: what could not be sent does not matter,
                // the refusal is still there to read.
                while !output.isEmpty, output.write(to: fd) == nil {
                    guard HeldConnection.ready(for: POLLOUT, on: fd) else { return "(stalled)" }
                }
                var decoder = ControlLineDecoder(maximumLineLength: 1 << 20)
                var buffer = [UInt8](repeating: 0, count: 4096)
                var answered = 0
                while answered < count {
                    guard HeldConnection.ready(for: POLLIN, on: fd) else { return "(no answer)" }
                    guard case .done(let received) = buffer.withUnsafeMutableBytes({ UnixSocket.receive(fd, into: $0) }), received > 0 else {
                        return "(closed)"
                    }
                    for case .line(let line) in decoder.feed(buffer[0..<received]) {
                        guard let message = try? JSONDecoder().decode(JSONValue.self, from: Data(line)) else { return "(not JSON)" }
                        if message["id"] == .null, case .string(let text)? = message["error"]?["message"] { return text }
                        if message["ok"] == .bool(true) { answered += 1 }
                    }
                }
                return nil
            }
            return HeldConnection(fd: fd, refusal: refusal)
        }

        /// Waits for `event` on `fd`, at most 30 s; `false` if it did not come.
        private static func ready(for event: Int32, on fd: Int32) -> Bool {
            var descriptor = pollfd(fd: fd, events: Int16(event), revents: 0)
            return poll(&descriptor, 1, 30_000) > 0
        }
    }

    @Test(.enabled(if: DaemonCommandTests.canSwitchUser, "needs root and setpriv to run alarmctl as other users"))
    func aUserWithTwoThousandLongTitledAlarmsAndSixtyFourSubscriptionsStopsNoOnesList() async throws {
        // Her 2,000 alarms, each with a title of 200 characters, come to about 1.6 MB of records:
        // past the 1 MiB a client may leave unread. Written to the store before the daemon starts,
        // as a restart finds them (scheduling them one by one takes half a minute here).
        let title = String(repeating: "M", count: AlarmDefinition.maximumTextLength)
        let start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) + 86_400)
        let hers = (0..<2000).map { index in
            let due = start.addingTimeInterval(Double(index) * 60)
            return AlarmRecord(
                id: Alarm.ID(), owner: ClientID(rawValue: Self.mallory.uid),
                definition: AlarmDefinition(
                    schedule: .fixed(due), countdownDuration: nil, presentation: AlarmPresentation(alert: .init(title: title))),
                phase: .scheduled(.fixed(due)), createdAt: start.addingTimeInterval(-86_400), sequenceNumber: UInt64(index + 1))
        }
        let daemon = try RunningDaemon(
            configuration: "[alarms]\nmax_alarms = 3000\n",
            state: StoredState(
                scheduler: SchedulerSnapshot(alarms: hers),
                authorizations: [AuthorizationRecord(client: ClientID(rawValue: Self.mallory.uid), state: .authorized)],
                savedAt: start.addingTimeInterval(-86_400)))
        defer { daemon.stop() }
        daemon.openToEveryone()

        // Then she tries to hold all 64 connections, each with four subscriptions that never
        // time out: she gets her share, and is told why not more.
        var held: [HeldConnection] = []
        for _ in 0..<64 { held.append(try await HeldConnection.subscribe(4, as: Self.mallory, socket: daemon.socket)) }
        defer { held.forEach { close($0.fd) } }
        let admitted = held.filter { $0.refusal == nil }
        #expect(admitted.count == 16)
        #expect(Set(held.compactMap(\.refusal)) == ["uid 65533 already holds 16 connections, the most one user may; close one first"])

        // Another user's list, and root's list of everyone's alarms, are answered in full.
        let nobodys = try await daemon.alarmctlAsNobody(["list"])
        #expect(nobodys.exitStatus == 0, "stderr: \(nobodys.standardError)")
        #expect(nobodys.standardOutput == "You have no alarms.\n")
        let everyone = try await daemon.alarmctl(["list", "--all", "--json"])
        #expect(everyone.exitStatus == 0, "stderr: \(everyone.standardError)")
        let listed = Output.array(try Output.json(everyone.standardOutput)["alarms"])
        #expect(listed.count == 2000)
        #expect(Set(listed.map { $0["owner"] }) == [.integer(Int64(Self.mallory.uid))])
        #expect(Set(listed.map { $0["title"] }) == [.string(title)])
        // Her connections are still held: nothing of hers was closed to make room.
        for connection in admitted {
            var descriptor = pollfd(fd: connection.fd, events: 0, revents: 0)
            _ = poll(&descriptor, 1, 0)
            #expect(descriptor.revents & Int16(POLLHUP | POLLERR) == 0, "a held connection was closed")
        }
    }
}
