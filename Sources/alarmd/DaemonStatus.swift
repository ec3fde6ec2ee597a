import AlarmAppliance
import AlarmBoard
import AlarmControl
import AlarmDaemon
import AlarmEngine
import AlarmGPIO
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTime
import BuildVersion
import FoundationEssentials
import Logging

/// Gathers the daemon's status from the engine, the appliance and the GPIO backends: the
/// service's (``DaemonMode``) and the simulator's (``SimulatorMode``, whose parts are fakes, so
/// only the appliance's faults and the store's make them unhealthy), the same way.
struct DaemonStatus: Sendable {
    let runtime: AlarmRuntime
    let appliance: Appliance
    let board: DaemonBoard
    let boardName: String
    let startedAt = Date()

    init(runtime: AlarmRuntime, appliance: Appliance, board: DaemonBoard, boardName: String) {
        self.runtime = runtime
        self.appliance = appliance
        self.board = board
        self.boardName = boardName
    }

    /// The status as `viewer` may see it: the device's parts and clock, and `viewer`'s own alarms;
    /// every client's alarms for `nil` (an administrator, systemd's status line).
    func report(alarmsOf viewer: ClientID?) async -> StatusReport {
        let alarms = await runtime.alarmSummary(for: viewer)
        let clockTrusted = await runtime.isClockTrusted
        let timeZone = await runtime.timeZone
        let faults = await appliance.partFaults
        var parts: [StatusReport.Part] = []
        parts.append(Self.part("buttons", board.buttons?.status))
        parts.append(Self.part("led", board.indicator?.status, fault: faults.indicator))
        parts.append(.init(name: "display", state: faults.display == nil ? "ok" : "fault", detail: faults.display.map { "\($0)" }))
        // The appliance's fault: failures while an alarm rang, and the device missing at start.
        let fallback = await appliance.soundFallbackNote
        let soundDetail = faults.sound.map { "\($0)" } ?? fallback
        parts.append(.init(name: "sound", state: faults.sound == nil ? "ok" : "fault", detail: soundDetail))
        if appliance.hasLight {
            parts.append(.init(name: "light", state: faults.light == nil ? "ok" : "fault", detail: faults.light.map { "\($0)" }))
        }
        parts.append(Self.part(storage: await runtime.storageHealth))
        return StatusReport(
            version: AlarmdVersion.current, board: boardName, startedAt: startedAt,
            clockTrusted: clockTrusted, timeZone: timeZone.identifier, scope: viewer == nil ? .device : .client,
            alarms: alarms.alarmCount, alerting: alarms.alertingCount, nextAlarm: alarms.nextAlarm?.dueDate, parts: parts,
            time: await runtime.currentTimeSource(), light: await appliance.lightOutput, upcomingAlarms: alarms.upcoming)
    }

    /// The store: a fault while it cannot be read or saves fail (with the errno a person searches
    /// for), and the files found bad at start, which are a fault until someone at the device has
    /// seen them.
    static func part(storage: StorageHealth) -> StatusReport.Part {
        var details: [String] = []
        if let fault = storage.readFault {
            details.append(
                "cannot be read since \(ISO8601.format(fault.since, in: .utc)): \(fault.message); the alarms that could be read "
                    + "ring meanwhile")
        }
        if let fault = storage.fault {
            details.append("cannot be written since \(ISO8601.format(fault.since, in: .utc)): \(fault)")
        }
        if storage.readFault != nil || storage.fault != nil, storage.hasUnsavedChanges {
            details.append("changes in effect but not saved yet")
        }
        if !storage.problemsAtStart.isEmpty {
            details.append("set aside at start: " + storage.problemsAtStart.joined(separator: "; "))
        }
        let faulty = storage.readFault != nil || storage.fault != nil || storage.hasUnseenProblems
        return .init(name: "storage", state: faulty ? "fault" : "ok", detail: details.isEmpty ? nil : details.joined(separator: "; "))
    }

    private static func part(_ name: String, _ status: GPIOStatus?, fault: HardwareError? = nil) -> StatusReport.Part {
        if let fault { return .init(name: name, state: "fault", detail: "\(fault)") }
        switch status {
        case nil: return .init(name: name, state: "ok", detail: "simulated")
        case .ready?: return .init(name: name, state: "ok", detail: nil)
        case .starting?: return .init(name: name, state: "starting", detail: nil)
        case .failed(let error)?: return .init(name: name, state: "fault", detail: "\(error)")
        case .closed?: return .init(name: name, state: "fault", detail: "closed")
        }
    }

    /// One line for `systemctl status`.
    func summary() async -> String {
        let report = await report(alarmsOf: nil)
        let faulty = report.parts.filter { $0.state != "ok" }.map(\.name)
        var line = "\(report.alarms) alarm\(report.alarms == 1 ? "" : "s")"
        if !report.clockTrusted { line += "; clock not set: waiting for the time" }
        line += faulty.isEmpty ? "; all parts working" : "; not working: \(faulty.joined(separator: ", "))"
        return line
    }

    /// Logs each GPIO backend's status changes until cancelled (the backends have no logger).
    func followParts(logger: Logger) async {
        await withDiscardingTaskGroup { group in
            // Updates carry changes from the subscription on: the status before it is logged first.
            if let buttons = board.buttons {
                let updates = buttons.statusUpdates()
                Self.log(buttons.status, part: "buttons", logger: logger)
                group.addTask { await Self.log(updates, part: "buttons", logger: logger) }
            }
            if let indicator = board.indicator {
                let updates = indicator.statusUpdates()
                Self.log(indicator.status, part: "led", logger: logger)
                group.addTask { await Self.log(updates, part: "led", logger: logger) }
            }
        }
    }

    private static func log(_ updates: AsyncStream<GPIOStatus>, part: String, logger: Logger) async {
        for await status in updates {
            log(status, part: part, logger: logger)
        }
    }

    private static func log(_ status: GPIOStatus, part: String, logger: Logger) {
        switch status {
        case .ready: logger.notice("Board part working", metadata: ["part": "\(part)"])
        case .failed(let error): logger.error("Board part not working; retrying", metadata: ["part": "\(part)", "error": "\(error)"])
        case .starting, .closed: break
        }
    }
}
