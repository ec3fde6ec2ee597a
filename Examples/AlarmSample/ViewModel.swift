// Apple's ViewModel.swift (AlarmKit-ScheduleAndAlert): the app's alarms and the calls that
// schedule and cancel them, over `AlarmManager.shared` (here the device's alarmd), and the
// AlarmButton styles. Lines that differ from Apple's say why with `// Linux:`.

import AlarmKit
// Linux: no `import SwiftUI`: AlarmKit has its own `Color`.

actor ViewModel { // Linux: an actor, not an `@Observable class` with `@MainActor` state: the main thread waits in readLine for the terminal, and Linux runs the main actor only when that thread is free
    typealias AlarmConfiguration = AlarmManager.AlarmConfiguration<CookingData>
    typealias AlarmsMap = [UUID: (Alarm, LocalizedStringResource)]

    private let alarmManager = AlarmManager.shared // Linux: no `@ObservationIgnored`: nothing is observed
    var alarmsMap = AlarmsMap() { // Linux: isolated to the actor rather than `@MainActor`
        didSet { changes.continuation.yield() } // Linux: as `@Observable` tells SwiftUI
    }

    // Linux: that `alarmsMap` changed, for the terminal, as `@Observable` tells SwiftUI.
    let changes = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

    var hasUpcomingAlerts: Bool { // Linux: isolated to the actor rather than `@MainActor`
        !alarmsMap.isEmpty
    }

    init() {
        observeAlarms()
    }

    func fetchAlarms() {
        do {
            let remoteAlarms = try alarmManager.alarms
            updateAlarmState(with: remoteAlarms)
        } catch {
            print("Error fetching alarms: \(error)")
        }
    }

    func scheduleAlarm(with userInput: AlarmForm) -> Task<Void, Never> { // Linux: returns the scheduling task, which the terminal waits for before its next command
        let attributes = AlarmAttributes(presentation: alarmPresentation(with: userInput),
                                         metadata: CookingData(),
                                         tintColor: Color.blue)

        let id = UUID()
        let alarmConfiguration = AlarmConfiguration(countdownDuration: userInput.countdownDuration,
                                                    schedule: userInput.schedule,
                                                    attributes: attributes,
                                                    stopIntent: StopIntent(alarmID: id.uuidString),
                                                    secondaryIntent: secondaryIntent(alarmID: id, userInput: userInput))

        return scheduleAlarm(id: id, label: userInput.localizedLabel, alarmConfiguration: alarmConfiguration) // Linux: returns the scheduling task
    }

    func scheduleAlarm(id: UUID, label: LocalizedStringResource, alarmConfiguration: AlarmConfiguration) -> Task<Void, Never> { // Linux: returns the scheduling task, which the terminal waits for before its next command
        Task {
            do {
                guard await requestAuthorization() else {
                    print("Not authorized to schedule alarms.")
                    return
                }
                let alarm = try await alarmManager.schedule(id: id, configuration: alarmConfiguration)
                alarmsMap[id] = (alarm, label) // Linux: the task runs on the actor, so no `await MainActor.run`
            } catch {
                print("Error encountered when scheduling alarm: \(error)")
            }
        }
    }

    func unscheduleAlarm(with alarmID: UUID) {
        try? alarmManager.cancel(id: alarmID)
        alarmsMap[alarmID] = nil // Linux: on the actor, so no `Task { @MainActor in }`
    }

    private func alarmPresentation(with userInput: AlarmForm) -> AlarmPresentation {
        let secondaryButtonBehavior = userInput.secondaryButtonBehavior
        let secondaryButton: AlarmButton? = switch secondaryButtonBehavior {
            case .countdown: .repeatButton
            case .custom: .openAppButton
            default: nil
        }

        let alertContent = AlarmPresentation.Alert(title: userInput.localizedLabel,
                                                   stopButton: .stopButton,
                                                   secondaryButton: secondaryButton,
                                                   secondaryButtonBehavior: secondaryButtonBehavior)

        guard userInput.countdownDuration != nil else {
            // An alarm without countdown specifies only an alert state.
            return AlarmPresentation(alert: alertContent)
        }

        // With countdown enabled, provide a presentation for both a countdown and paused state.
        let countdownContent = AlarmPresentation.Countdown(title: userInput.localizedLabel,
                                                           pauseButton: .pauseButton)

        let pausedContent = AlarmPresentation.Paused(title: "Paused",
                                                     resumeButton: .resumeButton)

        return AlarmPresentation(alert: alertContent, countdown: countdownContent, paused: pausedContent)
    }

    private func secondaryIntent(alarmID: UUID, userInput: AlarmForm) -> (any LiveActivityIntent)? {
        guard let behavior = userInput.secondaryButtonBehavior else { return nil }

        switch behavior {
        case .countdown:
            return RepeatIntent(alarmID: alarmID.uuidString)
        case .custom:
            return OpenAlarmAppIntent(alarmID: alarmID.uuidString)
        } // Linux: no `@unknown default`: AlarmKit is built with the app here, so its enums are exhaustive (the case would be a warning)
    }

    nonisolated private func observeAlarms() { // Linux: nonisolated, so that the actor's initializer can start it
        Task {
            for await incomingAlarms in alarmManager.alarmUpdates {
                await updateAlarmState(with: incomingAlarms) // Linux: `await`: the update runs on the actor
                await received(incomingAlarms) // Linux: for the terminal, which waits for the update a command caused
            }
        }
    }

    // Linux: the newest list `alarmUpdates` delivered, so that the terminal can wait until the
    // update a command caused has arrived (it comes on its own connection, after the reply).
    private(set) var latestUpdate: [Alarm]?

    private func received(_ remoteAlarms: [Alarm]) { // Linux: as above
        latestUpdate = remoteAlarms
        changes.continuation.yield()
    }

    private func updateAlarmState(with remoteAlarms: [Alarm]) {
        // Linux: on the actor, so no `Task { @MainActor in }` around the body

        // Update existing alarm states.
        remoteAlarms.forEach { updated in
            alarmsMap[updated.id, default: (updated, "Alarm (Old Session)")].0 = updated
        }

        let knownAlarmIDs = Set(alarmsMap.keys)
        let incomingAlarmIDs = Set(remoteAlarms.map(\.id))

        // Clean-up removed alarms.
        let removedAlarmIDs = Set(knownAlarmIDs.subtracting(incomingAlarmIDs))
        removedAlarmIDs.forEach {
            alarmsMap[$0] = nil
        }
    }

    private func requestAuthorization() async -> Bool {
        switch alarmManager.authorizationState {
        case .notDetermined:
            do {
                let state = try await alarmManager.requestAuthorization()
                return state == .authorized
            } catch {
                print("Error occurred while requesting authorization: \(error)")
                return false
            }
        case .denied: return false
        case .authorized: return true
        } // Linux: no `@unknown default`: AlarmKit is built with the app here, so its enums are exhaustive (the case would be a warning)
    }
}

extension AlarmButton {
    static var openAppButton: Self {
        AlarmButton(text: "Open", textColor: .black, systemImageName: "swift")
    }

    static var pauseButton: Self {
        AlarmButton(text: "Pause", textColor: .black, systemImageName: "pause.fill")
    }

    static var resumeButton: Self {
        AlarmButton(text: "Start", textColor: .black, systemImageName: "play.fill")
    }

    static var repeatButton: Self {
        AlarmButton(text: "Repeat", textColor: .black, systemImageName: "repeat.circle")
    }

    static var stopButton: Self {
        AlarmButton(text: "Done", textColor: .white, systemImageName: "stop.circle")
    }
}
