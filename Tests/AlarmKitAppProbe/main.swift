import AlarmKit

// A program on the device that uses AlarmKit as an app does, importing nothing else: `UUID` and
// `Locale.Weekday` come with AlarmKit, the manager is `AlarmManager.shared` ($ALARMD_SOCKET).
// It prints one line per step for AlarmKitAppTests; an error ends it with a line `failed: ...`.

/// Apple's synchronous members, called from synchronous code as an intent's `perform()` would.
func listSynchronously(_ manager: AlarmManager) throws -> [Alarm] {
    try manager.alarms
}

func cancelSynchronously(_ manager: AlarmManager, id: Alarm.ID) throws {
    try manager.cancel(id: id)
}

let manager = AlarmManager.shared
do {
    print("authorization \(manager.authorizationState)")
    let id = UUID()
    let weekly = Alarm.Schedule.relative(.init(time: .init(hour: 7, minute: 30), repeats: .weekly([Locale.Weekday.monday])))
    let attributes = AlarmAttributes<NoAlarmMetadata>(presentation: AlarmPresentation(alert: .init(title: "Probe")), tintColor: .blue)
    let alarm = try await manager.schedule(id: id, configuration: .alarm(schedule: weekly, attributes: attributes))
    print("scheduled \(alarm.id) \(alarm.state)")
    print("listed \(try listSynchronously(manager).map(\.id.uuidString).joined(separator: ","))")
    try cancelSynchronously(manager, id: id)
    print("listed after cancel \(try listSynchronously(manager).count)")
    do {
        try cancelSynchronously(manager, id: id)
    } catch {
        print("cancel again: \(error)")
    }
} catch {
    print("failed: \(error)")
}
