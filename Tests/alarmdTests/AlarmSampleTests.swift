import AlarmClient
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTestKit
import FoundationEssentials
import Glibc
import Testing

/// The sample app (`Examples/AlarmSample`, Apple's AlarmKit sample on this device) against the
/// real daemon, driven as a person at its terminal: commands on standard input, one per line.
@Suite(.timeLimit(.minutes(5))) struct AlarmSampleTests {
    static let sample = ChildProcess.product("alarm-sample")

    @Test func commandsScheduleListPauseAndCancelThroughAlarmKit() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try DaemonServiceTests.Daemon(directory: directory.path)
        defer { daemon.stop(SIGKILL) }
        try await daemon.waitUntilServing()

        // The child ends at the end of its input, once each command has run and printed.
        let result = try await ChildProcess.run(
            Self.sample, [], environment: ["ALARMD_SOCKET": daemon.socket],
            input: """
                timer 90s Tea --repeat=30s
                alarm 07:30 mon,wed,fri Wake up --open
                list
                pause 1
                cancel 1
                list
                snooze 2
                timer 5x

                """)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(result.exitStatus == 0)
        #expect(result.standardError.isEmpty, "\(result.standardError)")
        let tea = "Tea  timer 1:30  repeat 0:30"
        let wakeUp = "[2] Wake up  07:30  Mon,Wed,Fri  SCHEDULED"
        #expect(lines.contains("added [1] \(tea)  RUNNING (pause, stop)"), "\(result.standardOutput)")
        #expect(lines.contains("added \(wakeUp)"), "the label is the form's, not an old session's")
        let firstList = try #require(lines.firstIndex(of: "2 alarms:"), "\(result.standardOutput)")
        #expect(lines[firstList + 1].hasPrefix("[1] \(tea)  RUNNING (pause, stop)  id "))
        #expect(lines[firstList + 2].hasPrefix("\(wakeUp)  id "))
        #expect(lines.contains("changed [1] \(tea)  PAUSED (resume, stop)"), "PauseIntent paused it")
        #expect(lines.contains("removed [1] Tea"))
        let lastList = try #require(lines.firstIndex(of: "1 alarm:"), "\(result.standardOutput)")
        #expect(lines[lastList + 1].hasPrefix("\(wakeUp)  id "))
        #expect(lines.contains("error: unknown command snooze (type help)"))
        #expect(lines.last == "error: timer needs a duration, such as 90s, 5m or 1h30m")

        // The daemon keeps the weekly alarm as the sample configured it: Apple's presentation,
        // its CookingData, and its intents with the alarm's id.
        let client = ControlClient(path: daemon.socket)
        defer { client.close() }
        let records = try await client.request("alarmRecords", as: [AlarmRecord].self)
        try #require(records.count == 1)
        let record = records[0]
        let definition = record.definition
        #expect(record.alarm.state == .scheduled)
        #expect(Self.weekly(definition.schedule) == Weekly(hour: 7, minute: 30, days: [.monday, .wednesday, .friday]))
        #expect(definition.presentation.alert.title == "Wake up")
        #expect(definition.presentation.alert.stopButton.text == "Done")
        #expect(definition.presentation.alert.secondaryButton?.text == "Open")
        #expect(definition.presentation.alert.secondaryButtonBehavior == .custom)
        #expect(definition.presentation.countdown == nil, "an alarm without a countdown has only an alert")
        #expect(definition.tintColor == .blue)
        #expect(definition.metadata != nil, "CookingData")
        #expect(definition.stopIntent == AlarmIntent("StopIntent", parameters: ["alarmID": record.id.uuidString]))
        #expect(definition.secondaryIntent == AlarmIntent("OpenAlarmAppIntent", parameters: ["alarmID": record.id.uuidString]))
    }

    /// A timer from the sample rings at the device: waited for on the daemon's updates.
    @Test func aTimerFromTheSampleAlerts() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try DaemonServiceTests.Daemon(directory: directory.path)
        defer { daemon.stop(SIGKILL) }
        try await daemon.waitUntilServing()
        let client = ControlClient(path: daemon.socket)
        defer { client.close() }
        var updates = client.alarmUpdates().makeAsyncIterator()
        #expect(await updates.next() == [], "subscribed before the sample runs")

        let result = try await ChildProcess.run(
            Self.sample, [], environment: ["ALARMD_SOCKET": daemon.socket], input: "timer 1s Eggs --repeat=1m\n")
        #expect(result.standardOutput.contains("added [1] Eggs  timer 0:01  repeat 1:00  RUNNING (pause, stop)\n"), "\(result.standardOutput)")
        while true {
            let alarms = try #require(await updates.next(), "the daemon's updates ended")
            try #require(alarms.count == 1)
            if alarms[0].state == .alerting { break }
        }
    }

    struct Weekly: Equatable {
        var hour, minute: Int
        var days: Set<Locale.Weekday>
    }

    /// A weekly schedule's days as a set: the sample passes `Array(selectedDays)`, in no order.
    static func weekly(_ schedule: Alarm.Schedule?) -> Weekly? {
        guard case .relative(let relative)? = schedule, case .weekly(let days) = relative.repeats else { return nil }
        return Weekly(hour: relative.time.hour, minute: relative.time.minute, days: Set(days))
    }
}
