import AlarmControl
import AlarmModel
import AlarmProtocol
import AlarmEngine
import AlarmSimulator
import AlarmTestKit
import AlarmTime
import Dispatch
import FoundationEssentials
import Logging

/// A daemon that answers alarmctl's optional `alarmRecords` operation: a real ``AlarmRuntime``
/// (manual clock, UTC) behind a real ``ControlServer`` in this process, so that what alarmctl
/// prints from records (titles, countdowns' time left) is checked exactly.
///
/// The handler is the one proposed for alarmd: the caller's records, or everyone's with
/// `{"all": true}` for administrators, oldest first.
final class RecordsServer: Sendable {
    let directory: TemporaryDirectory
    let clock: ManualWallClock
    let runtime: AlarmRuntime
    let server: ControlServer
    var socket: String { directory.path + "/control.sock" }

    init(now: Date) throws {
        directory = try TemporaryDirectory()
        clock = ManualWallClock(now: now)
        let logger = Logger(label: "alarmctl-test", factory: { _ in SwiftLogNoOpLogHandler() })
        let runtime = try AlarmRuntime(
            configuration: .init(clockTrust: .always, storeDirectory: directory.path + "/state"), clock: clock,
            timeZones: ManualTimeZoneProvider(.utc), authorizer: FixedAuthorization(.authorized), logger: logger)
        self.runtime = runtime
        var configuration = ControlServer.Configuration(socketPath: directory.path + "/control.sock")
        configuration.serverVersion = "test"
        var handlers = ControlHandlers()
        handlers.register(.alarmRecords) { call, parameters in
            let all = parameters.all == true
            var records: [AlarmRecord] = []
            for owned in await runtime.allAlarms() where all || owned.owner.rawValue == call.peer.uid {
                if let record = await runtime.record(for: AlarmKey(owner: owned.owner, id: owned.alarm.id)) {
                    records.append(record)
                }
            }
            return records
        }
        server = ControlServer(configuration: configuration, runtime: runtime, handlers: handlers, logger: logger)
        try server.start()
    }

    func stop() async {
        await server.stop()
    }

    /// Runs alarmctl against this server, off the cooperative thread pool: the server's handlers
    /// need that pool while the child runs.
    func alarmctl(_ arguments: [String]) async throws -> ChildProcess.Result {
        let socket = self.socket
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    try ChildProcess.run(ChildProcess.product("alarmctl"), arguments, environment: ["ALARMD_SOCKET": socket, "TZ": "UTC"])
                })
            }
        }
    }
}
