import AlarmKit

// A program on the device that uses AlarmKit as an app does, importing nothing else: `UUID` and
// `Locale.Weekday` come with AlarmKit, the manager is `AlarmManager.shared` ($ALARMD_SOCKET).
// It prints one line per step for AlarmKitAppTests; an error ends it with a line `failed: ...`.
// With the argument `intents N` it runs the first N stop intents it takes, acknowledging each,
// then exits (IntentProcessTests).

/// Apple's synchronous members, called from synchronous code as an intent's `perform()` would.
func listSynchronously(_ manager: AlarmManager) throws -> [Alarm] {
    try manager.alarms
}

func cancelSynchronously(_ manager: AlarmManager, id: Alarm.ID) throws {
    try manager.cancel(id: id)
}

/// The intent of the alarms the tests set for this probe.
struct ProbeStopIntent: LiveActivityIntent {
    var alarmID: String

    func perform() throws -> some IntentResult {
        print("ran \(Self.intentName) \(alarmID)")
        return .result()
    }
}

/// Apple's intents are `async` and call the synchronous members without `await`, as Apple's
/// own examples do: this must compile unchanged.
struct ProbeRepeatIntent: LiveActivityIntent {
    var alarmID: String

    func perform() async throws -> some IntentResult {
        try AlarmManager.shared.countdown(id: UUID(uuidString: alarmID)!)
        try AlarmManager.shared.stop(id: UUID(uuidString: alarmID)!)
        return .result()
    }
}

/// Takes, runs and acknowledges `count` deliveries as `AlarmManager.handleIntents` does, one by
/// one, so that the process ends only once its acknowledgements are in. One that another process
/// of this app took is left to it.
func runIntents(_ count: Int) async throws {
    var remaining = count
    for await delivery in AlarmManager.shared.intentDeliveries where remaining > 0 {
        guard try await AlarmManager.shared.take(delivery) else {
            print("taken elsewhere \(delivery.intent.name) \(delivery.intent.parameters["alarmID"] ?? "")")
            continue
        }
        print("delivered \(delivery.button) \(delivery.intent.name)")
        _ = try ProbeStopIntent(delivery.intent).perform()
        try await AlarmManager.shared.acknowledge(delivery)
        remaining -= 1
        if remaining == 0 { return }
    }
}

let manager = AlarmManager.shared
let arguments = CommandLine.arguments.dropFirst()

/// Schedules, lists synchronously, cancels synchronously, cancels again.
func scheduleListAndCancel() async {
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
            try manager.cancel(id: id)   // Apple's synchronous member, unchanged in async code
        } catch {
            print("cancel again: \(error)")
        }
    } catch {
        print("failed: \(error)")
    }
}

if arguments.first == "intents", let count = arguments.dropFirst().first.flatMap({ Int($0) }) {
    do {
        try await runIntents(count)
    } catch {
        print("failed: \(error)")
    }
} else {
    await scheduleListAndCancel()
}
