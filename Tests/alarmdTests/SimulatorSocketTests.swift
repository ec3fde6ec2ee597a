import AlarmClient
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTestKit
import CTestSupport
import Dispatch
import FoundationEssentials
import Glibc
import Testing

/// `alarmd --simulate` in a pseudo-terminal serves the control socket: an app sets an alarm
/// through it, alarmctl's records are there, the simulator's `s` key (STOP) silences the alarm, and the app receives the
/// alarm's stop intent.
@Suite(.timeLimit(.minutes(5))) struct SimulatorSocketTests {
    @Test func theSimulatorsStopKeyDeliversTheStopIntentToTheAppOverItsSocket() async throws {
        let directory = try TemporaryDirectory()
        let socket = directory.path + "/simulator.sock"
        var controller: Int32 = -1
        var terminal: Int32 = -1
        try #require(alarmd_pseudo_terminal_open(&controller, &terminal) == 0)
        defer { close(controller) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            posix_spawn_file_actions_adddup2(&actions, terminal, descriptor)
        }
        let pid = try ChildProcess.spawn(
            DaemonServiceTests.alarmd, ["--simulate", "--sound", "silent", "--socket", socket], environment: [:], actions: &actions)
        close(terminal)
        ScreenDrain.start(controller)
        var exited = false
        defer {
            if !exited {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
        }

        // The client connects once the simulator listens (it retries with backoff until then).
        let manager = AlarmManager(backend: SocketAlarmBackend(path: socket))
        var lists = manager.alarmUpdates.makeAsyncIterator()
        var deliveries = manager.intentDeliveries.makeAsyncIterator()
        _ = await lists.next()
        let id = Alarm.ID()
        _ = try await manager.schedule(id: id, configuration: .alarm(
            schedule: .fixed(Date()),
            attributes: AlarmAttributes<NoAlarmMetadata>(presentation: .init(alert: .init(title: "Sim")), tintColor: .blue),
            stopIntent: AlarmIntent("coffee", parameters: ["cups": "2"])))
        while let alarms = await lists.next(), alarms.first?.state != .alerting {}
        // alarmctl's list, show and watch read the daemon's records, which the simulator serves too.
        let client = ControlClient(path: socket)
        defer { client.close() }
        let records = try await client.request("alarmRecords", as: [AlarmRecord].self)
        #expect(records.map(\.definition.presentation.alert.title) == ["Sim"])

        #expect(write(controller, "s", 1) == 1)
        let delivery = try #require(await deliveries.next())
        #expect(delivery.intent == AlarmIntent("coffee", parameters: ["cups": "2"]))
        #expect(delivery.alarmID == id && delivery.button == .stop)
        while let alarms = await lists.next(), !alarms.isEmpty {}
        try await manager.acknowledge(delivery)

        #expect(write(controller, "q", 1) == 1)
        var status: Int32 = 0
        exited = waitpid(pid, &status, 0) == pid
        #expect(exited && status == 0, "the simulator quits cleanly on q")
    }
}

/// Reads and drops the simulator's screen output on a thread outside the cooperative pool, so
/// that the simulator never blocks on a full pseudo-terminal buffer; it ends when the simulator
/// has exited (a read of the controlling side then fails).
enum ScreenDrain {
    static func start(_ descriptor: Int32) {
        DispatchQueue.global().async {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        }
    }
}
