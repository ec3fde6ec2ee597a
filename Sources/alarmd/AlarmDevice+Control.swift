import AlarmControl
import AlarmDaemon
import AlarmProtocol
import Logging

extension AlarmDevice where Board == DaemonBoard {
    /// The control socket on this device, answering every operation alarmd has: the engine's,
    /// the daemon's own (``DaemonStatus/handlers(settings:)``) and, where the board's parts can
    /// be checked, `selfTest`. The service and the simulator serve the same through this.
    func controlServer(
        _ configuration: ControlServer.Configuration, status: DaemonStatus, selfTest: DaemonOperations.SelfTestBoard?
    ) -> ControlServer {
        var handlers = status.handlers(settings: household)
        if let selfTest {
            handlers[SelfTestOperation.name] = DaemonOperations.selfTestHandler(appliance: appliance, board: selfTest)
        }
        return ControlServer(configuration: configuration, runtime: runtime, handlers: handlers, logger: logger)
    }
}

extension DaemonStatus {
    init(device: AlarmDevice<DaemonBoard>, boardName: String) {
        self.init(runtime: device.runtime, appliance: device.appliance, board: device.board, boardName: boardName)
    }
}
