import AlarmKitCore
import AlarmModel
import FoundationEssentials
import Glibc
import Logging
import Testing

@testable import AlarmClient
@testable import AlarmControl
@testable import AlarmProtocol
@testable import AlarmEngine

/// The bounds of fixed dates, countdowns and strings over the socket: just inside, an alarm comes
/// back exactly as sent, in the answer and in the list; just outside, it is refused with the bounds.
@Suite(.timeLimit(.minutes(5)))
struct DefinitionBoundsTests {
    static let lastSecondOfYear9999 = Date(timeIntervalSince1970: 253_402_300_799)

    @Test func theLastAcceptedFixedDateAndTheLongestCountdownComeBackExactly() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let client = rig.client()
            defer { client.close() }
            var definition = Sample.definition(at: Self.lastSecondOfYear9999)
            definition.countdownDuration = .init(preAlert: AlarmDefinition.maximumCountdown, postAlert: AlarmDefinition.minimumCountdown)
            let id = Alarm.ID()
            let alarm = try await client.schedule(id: id, definition: definition)
            #expect(alarm.schedule == .fixed(Self.lastSecondOfYear9999))
            #expect(alarm.countdownDuration == definition.countdownDuration)
            #expect(try await client.alarms() == [alarm])
            #expect(await rig.runtime.allRecords().first { $0.id == id }?.definition == definition)
        }
    }

    @Test(arguments: [253_402_300_800, 1e18, -1e18, -1])
    func aFixedDateOutsideTheRangeIsRefused(_ seconds: TimeInterval) async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let client = rig.client()
            defer { client.close() }
            let error = await #expect(throws: AlarmOperationError.self) {
                try await client.schedule(id: Alarm.ID(), definition: Sample.definition(at: Date(timeIntervalSince1970: seconds)))
            }
            let alarms = try await client.alarms()
            #expect(alarms.isEmpty)
            guard case .invalidConfiguration(let reason)? = error else { return }
            #expect(reason.hasSuffix("a fixed date must be from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z"), "\(reason)")
        }
    }

    @Test(arguments: [AlarmDefinition.maximumCountdown.nextUp, AlarmDefinition.minimumCountdown.nextDown, 1e300])
    func aCountdownOutsideTheBoundsIsRefused(_ seconds: TimeInterval) async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let client = rig.client()
            defer { client.close() }
            let error = await #expect(throws: AlarmOperationError.self) {
                try await client.schedule(id: Alarm.ID(), definition: Sample.timer(seconds))
            }
            let alarms = try await client.alarms()
            #expect(alarms.isEmpty)
            guard case .invalidConfiguration(let reason)? = error else { return }
            #expect(reason.hasSuffix("it must be from 0.001 to 31622400 s"), "\(reason)")
        }
    }

    /// A string of a definition, and how to set it.
    struct StringField: Sendable, CustomTestStringConvertible {
        var name: String
        var set: @Sendable (inout AlarmDefinition, String) -> Void
        var testDescription: String { name }
    }

    static func button(_ text: String, symbol: String) -> AlarmButton {
        AlarmButton(text: text, textColor: .white, systemImageName: symbol)
    }

    static let stringFields: [StringField] = [
        StringField(name: "presentation.alert.title") { $0.presentation.alert.title = $1 },
        StringField(name: "presentation.alert.stopButton.text") { $0.presentation.alert.stopButton.text = $1 },
        StringField(name: "presentation.alert.stopButton.systemImageName") { $0.presentation.alert.stopButton.systemImageName = $1 },
        StringField(name: "presentation.alert.secondaryButton.text") { $0.presentation.alert.secondaryButton = button($1, symbol: "zzz") },
        StringField(name: "presentation.alert.secondaryButton.systemImageName") {
            $0.presentation.alert.secondaryButton = button("Snooze", symbol: $1)
        },
        StringField(name: "presentation.countdown.title") { $0.presentation.countdown = .init(title: $1) },
        StringField(name: "presentation.countdown.pauseButton.text") {
            $0.presentation.countdown = .init(title: "Tea", pauseButton: button($1, symbol: "pause.fill"))
        },
        StringField(name: "presentation.countdown.pauseButton.systemImageName") {
            $0.presentation.countdown = .init(title: "Tea", pauseButton: button("Pause", symbol: $1))
        },
        StringField(name: "presentation.paused.title") { $0.presentation.paused = .init(title: $1, resumeButton: .resume) },
        StringField(name: "presentation.paused.resumeButton.text") {
            $0.presentation.paused = .init(title: "Paused", resumeButton: button($1, symbol: "play.fill"))
        },
        StringField(name: "presentation.paused.resumeButton.systemImageName") {
            $0.presentation.paused = .init(title: "Paused", resumeButton: button("Resume", symbol: $1))
        },
        StringField(name: "stopIntent.name") { $0.stopIntent = AlarmIntent($1) },
        StringField(name: "secondaryIntent.name") { $0.secondaryIntent = AlarmIntent($1) },
        StringField(name: "stopIntent.parameters[\"note\"]") { $0.stopIntent = AlarmIntent("Stop", parameters: ["note": $1]) },
        StringField(name: "a name in secondaryIntent.parameters") { $0.secondaryIntent = AlarmIntent("Snooze", parameters: [$1: "x"]) },
    ]

    /// Every string is held to the titles' 200 characters, and to 1,024 bytes (one character may
    /// carry any number of combining marks). The daemon refuses a longer one naming the field and
    /// the bound, and the AlarmKit client gets that very error.
    @Test(arguments: stringFields)
    func everyStringIsBoundedLikeTitles(_ field: StringField) async throws {
        var longest = Sample.definition()
        field.set(&longest, String(repeating: "ä", count: AlarmDefinition.maximumTextLength))
        #expect(throws: Never.self) { try longest.validate() }

        var marked = Sample.definition()
        field.set(&marked, "e" + String(repeating: "\u{301}", count: 600))
        #expect(throws: AlarmOperationError.invalidConfiguration("\(field.name) is 1201 bytes of UTF-8; at most 1024")) {
            try marked.validate()
        }

        var huge = Sample.definition()
        field.set(&huge, String(repeating: "x", count: 60_000))
        let refusal = AlarmOperationError.invalidConfiguration("\(field.name) has 60000 characters; at most 200")
        #expect(throws: refusal) { try huge.validate() }
        let rig = try ServerRig()
        try await rig.serving {
            // Sent as is, past any check of the client's: the daemon's own refusal.
            let connection = try await rig.rawConnection()
            await connection.send(Sample.scheduleRequest(1, alarm: Alarm.ID(), huge))
            let answer = await connection.nextMessage()
            #expect(answer?["error"]?["code"] == .string("invalidConfiguration"))
            #expect(answer?["error"]?["reason"] == .string("\(field.name) has 60000 characters; at most 200"))
            let backend = SocketAlarmBackend(client: rig.client())
            defer { backend.client.close() }
            await #expect(throws: refusal) { try await backend.schedule(id: Alarm.ID(), definition: huge) }
            _ = try await backend.schedule(id: Alarm.ID(), definition: longest)
            #expect(await rig.runtime.allRecords().map(\.definition) == [longest])
        }
    }

    @Test func aWeeklyScheduleNamesAtMostSevenDays() throws {
        let week: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]
        var definition = Sample.definition()
        definition.schedule = .relative(.init(time: .init(hour: 7, minute: 0), repeats: .weekly(week)))
        #expect(throws: Never.self) { try definition.validate() }
        definition.schedule = .relative(.init(time: .init(hour: 7, minute: 0), repeats: .weekly(week + [.monday])))
        #expect(throws: AlarmOperationError.invalidConfiguration("schedule repeats weekly on 8 days; a week has 7")) {
            try definition.validate()
        }
    }

    @Test func anIntentCarriesAtMostSixteenParameters() throws {
        var definition = Sample.definition()
        let parameters = Dictionary(uniqueKeysWithValues: (1...16).map { ("p\($0)", "v") })
        definition.stopIntent = AlarmIntent("Stop", parameters: parameters)
        #expect(throws: Never.self) { try definition.validate() }
        definition.stopIntent?.parameters["p17"] = "v"
        #expect(throws: AlarmOperationError.invalidConfiguration("stopIntent.parameters has 17 entries; at most 16")) {
            try definition.validate()
        }
    }

    /// The bounds apply to what is scheduled: an alarm the store holds from before them keeps its
    /// strings, is listed and rings, and only scheduling those strings anew is refused.
    @Test func anAlarmStoredBeforeTheBoundsKeepsItsStringsAndRings() async throws {
        let rig = try ServerRig()
        var definition = Sample.definition()
        definition.presentation.alert.stopButton.systemImageName = String(repeating: "x", count: 60_000)
        let id = Alarm.ID()
        let due = ServerRig.start.addingTimeInterval(3600)
        let record = AlarmRecord(
            id: id, owner: ClientID(rawValue: geteuid()), definition: definition, phase: .scheduled(.fixed(due)),
            createdAt: ServerRig.start, sequenceNumber: 1)
        let store = AlarmStore(directory: rig.storeDirectory, logger: ServerRig.logger)
        try store.save(StoredState(scheduler: SchedulerSnapshot(alarms: [record]), savedAt: ServerRig.start))
        try await rig.restart()
        try await rig.serving {
            let client = rig.client()
            defer { client.close() }
            #expect(try await client.alarmRecords().map(\.definition) == [definition])
            rig.clock.advance(to: due)
            await rig.runtime.catchUpWithClock()
            #expect(try await client.alarms().map(\.state) == [.alerting])
            try await client.perform(.stop, id: id)
            await #expect(throws: AlarmOperationError.invalidConfiguration(
                "presentation.alert.stopButton.systemImageName has 60000 characters; at most 200")
            ) {
                try await client.schedule(id: Alarm.ID(), definition: definition)
            }
            #expect(try await client.alarms().isEmpty)
        }
    }
}
