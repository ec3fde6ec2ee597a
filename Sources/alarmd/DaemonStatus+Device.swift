import AlarmDaemon

extension DaemonStatus {
    init(device: AlarmDevice<DaemonBoard>, boardName: String) {
        self.init(runtime: device.runtime, appliance: device.appliance, board: device.board, boardName: boardName)
    }
}
