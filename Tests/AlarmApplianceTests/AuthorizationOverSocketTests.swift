import AlarmAppliance
import AlarmClient
import AlarmControl
import AlarmModel
import AlarmProtocol
import AlarmEngine
import AlarmKitCore
import Glibc
import Logging
import AlarmTestKit
import Testing

/// The prompt asked for a client on the control socket: a program running as another user asks
/// through the remote `AlarmManager`, the person at the device answers with the (fake) buttons,
/// and the answer travels back over the socket.
@Suite(.timeLimit(.minutes(5)), .enabled(if: getuid() == 0, "connecting as another user needs root"))
struct AuthorizationOverSocketTests {
    /// Debian's nobody and nogroup: not root, not in the admin group.
    static let user: (uid: UInt32, gid: UInt32) = (65534, 65534)

    /// The appliance and a control server on one engine, and a manager connected as ``user``.
    func serving(
        _ body: (ApplianceRig, AlarmManager) async throws -> Void
    ) async throws {
        let prompter = DevicePrompter(userName: { $0.rawValue == Self.user.uid ? "nobody" : "\($0)" })
        let rig = try await ApplianceRig(authorizer: prompter)
        prompter.attach(rig.appliance)
        // The other user must reach the socket: a searchable directory, the socket in its group.
        chmod(rig.directory.path, 0o711)
        let run = rig.directory.path + "/run"
        mkdir(run, 0o755)
        let server = ControlServer(
            configuration: .init(socketPath: run + "/control.sock", socketGroupID: Self.user.gid),
            runtime: rig.runtime, logger: Logger(label: "prompt-over-socket", factory: { _ in SwiftLogNoOpLogHandler() }))
        try server.start()
        let client = ControlClient(connector: .unixSocket(path: run + "/control.sock", actingAsUID: Self.user.uid, gid: Self.user.gid))
        do {
            try await body(rig, AlarmManager(backend: SocketAlarmBackend(client: client)))
        } catch {
            client.close()
            await server.stop()
            throw error
        }
        client.close()
        await server.stop()
    }

    /// Waits until the display shows the prompt.
    func promptShown(on rig: ApplianceRig) async {
        var frames = rig.display.events().makeAsyncIterator()
        if rig.lines[0].contains("Allow") { return }
        while let event = await frames.next() {
            if case .frame(let frame) = event, frame.description.contains("Allow") { return }
        }
    }

    @Test func bothHeldAtTheDeviceAuthorizesTheRemoteClient() async throws {
        try await serving { rig, manager in
            #expect(await manager.awaitedAuthorizationState() == .notDetermined)
            let answer = Task { try await manager.requestAuthorization() }
            await promptShown(on: rig)
            #expect(rig.lines == ["Allow nobody to ", "No Yes:hold both"])
            await rig.holdBoth()
            let decided = try await answer.value
            #expect(decided == .authorized)
            #expect(await manager.awaitedAuthorizationState() == .authorized)
            #expect(await rig.runtime.authorizationState(for: ClientID(rawValue: Self.user.uid)) == .authorized)
        }
    }

    @Test func stopPressedAtTheDeviceDeniesAndTheRemoteScheduleFailsClearly() async throws {
        try await serving { rig, manager in
            let scheduling = Task {
                try await manager.schedule(id: Alarm.ID(), configuration: .alarm(
                    schedule: .relative(.init(time: .init(hour: 7, minute: 0), repeats: .never)),
                    attributes: AlarmAttributes<NoAlarmMetadata>(presentation: .init(alert: .init(title: "Work")), tintColor: .blue)))
            }
            await promptShown(on: rig)
            await rig.tap(.stop)
            await #expect(throws: AlarmOperationError.notAuthorized(.denied)) { _ = try await scheduling.value }
            #expect(await manager.awaitedAuthorizationState() == .denied)
            let remaining = await manager.awaitedAlarms()
            #expect(remaining.isEmpty)
        }
    }
}
