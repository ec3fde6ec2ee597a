import AlarmControl
import AlarmKit
import AlarmTime
import FoundationEssentials
import Testing

@testable import AlarmEngine

/// `AlarmJSONWriter` against `JSONEncoder`, the authority it stands in for: the same JSON (member
/// order aside) and a value `JSONDecoder` reads back equal, for records in every phase the
/// scheduler's random sequences reach, and for every field a definition can carry.
@Suite struct AlarmJSONWriterTests {
    @Test func recordsInEveryPhaseAreWrittenAsJSONEncoderWritesThem() throws {
        var phases: Set<String> = []
        var checked = 0
        for seed: UInt64 in 0..<25 {
            var run = InvariantRun(seed: seed)
            run.inspectRecords = { records in
                for record in records {
                    try Self.expectStoreForm(record)
                    try Self.expectWireForm(record.alarm)
                    phases.insert("\(record.phase)".prefix { $0 != "(" } + (record.phase.occurrence == nil ? "" : " with occurrence"))
                    checked += 1
                }
            }
            try run.play(steps: 60)
        }
        #expect(checked > 300)
        #expect(phases.isSuperset(of: [
            "scheduled", "scheduled with occurrence", "countdown", "countdown with occurrence", "paused", "alerting",
            "alerting with occurrence",
        ]), "\(phases)")
    }

    @Test func everyFieldOfADefinitionIsWritten() throws {
        let button = AlarmButton(text: "Snooze \"now\"", textColor: Color(red: 0.1, green: 0.25, blue: 1), systemImageName: "zzz")
        let definition = AlarmDefinition(
            schedule: .relative(.init(time: .init(hour: 6, minute: 5), repeats: .weekly([.monday, .sunday]))),
            countdownDuration: .init(preAlert: 1e-7, postAlert: 540.5),
            presentation: AlarmPresentation(
                alert: .init(
                    title: "Wake/up \\ \u{1}\u{1F}\u{7F} tab\there\nnewline\r é 🌅", stopButton: .stop, secondaryButton: button,
                    secondaryButtonBehavior: .custom),
                countdown: .init(title: "Soon", pauseButton: .pause),
                paused: .init(title: "Held", resumeButton: .resume)),
            tintColor: .purple,
            metadata: Data(#"{"pill":"blue","count":2}"#.utf8),
            stopIntent: AlarmIntent("open", parameters: ["url": "https://example.org/a?b=c", "": "empty \"key\""]),
            secondaryIntent: AlarmIntent("log"),
            sound: .named("birds.wav"))
        var record = AlarmRecord(
            id: Alarm.ID(), owner: ClientID(rawValue: .max), definition: definition,
            phase: .countdown(CountdownPhase(
                kind: .postAlert, startDate: Date(timeIntervalSince1970: 1_772_431_230.123456), previouslyElapsed: 12.75,
                total: 540.5, occurrence: .day(CivilDate(year: 2026, month: 3, day: 2)!))),
            createdAt: Date(timeIntervalSinceReferenceDate: -0.5), sequenceNumber: .max)
        record.lastOccurrenceDay = CivilDate(year: 2026, month: 3, day: 1)
        record.datesFromUntrustedClock = true
        try Self.expectStoreForm(record)
        try Self.expectWireForm(record)
        try Self.expectWireForm(record.alarm)

        // The other cases of each enum, and a definition with nothing optional.
        record.definition = AlarmDefinition(
            schedule: .fixed(Date(timeIntervalSince1970: 1e10)), countdownDuration: nil, presentation: Fixture.presentation())
        for phase: AlarmPhase in [
            .scheduled(nil), .scheduled(.fixed(Date(timeIntervalSince1970: 0))),
            .paused(PausedPhase(kind: .timer, previouslyElapsed: 0, total: 60, occurrence: nil)),
            .alerting(AlertingPhase(
                since: Date(timeIntervalSince1970: 1.5), dueDate: Date(timeIntervalSince1970: 1), time: .init(hour: 23, minute: 59),
                occurrence: nil)),
        ] {
            record.phase = phase
            try Self.expectStoreForm(record)
            try Self.expectWireForm(record)
            try Self.expectWireForm(record.alarm)
        }
        record.definition.schedule = .relative(.init(time: .init(hour: 0, minute: 0), repeats: .weekly([])))
        try Self.expectWireForm(record.alarm)
        record.definition.countdownDuration = .init(preAlert: nil, postAlert: nil)
        try Self.expectWireForm(record.alarm)
    }

    @Test func aNumberJSONCannotHoldIsRefusedAsJSONEncoderRefusesIt() {
        let alarm = Alarm(id: Alarm.ID(), schedule: nil, countdownDuration: .init(preAlert: .infinity, postAlert: nil), state: .countdown)
        #expect(AlarmJSONWriter.json(of: alarm, dates: .secondsSince1970) == nil)
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(alarm) }
        let record = AlarmRecord(
            id: Alarm.ID(), owner: Fixture.owner, definition: Fixture.timer(60),
            phase: .paused(PausedPhase(kind: .timer, previouslyElapsed: .nan, total: 60, occurrence: nil)),
            createdAt: Date(), sequenceNumber: 1)
        #expect(AlarmJSONWriter.json(of: record, dates: .sinceReferenceDate) == nil)
    }

    // MARK: - The oracle

    /// Any JSON value, objects compared without regard to member order. Numbers are compared as
    /// `JSONDecoder` reads them (`60` and `60.0` are one value).
    static func json(_ bytes: [UInt8]) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// As the store writes records: `JSONEncoder()` with its defaults.
    static func expectStoreForm(_ record: AlarmRecord, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = try #require(AlarmJSONWriter.json(of: record, dates: .sinceReferenceDate), sourceLocation: sourceLocation)
        let reference = try JSONEncoder().encode(record)
        #expect(try Self.json(written) == Self.json(Array(reference)), "\(String(decoding: written, as: UTF8.self))", sourceLocation: sourceLocation)
        #expect(try JSONDecoder().decode(AlarmRecord.self, from: Data(written)) == record, sourceLocation: sourceLocation)
    }

    /// As the control protocol writes records (`alarmd`'s `alarmRecords`): dates as seconds since
    /// 1970, read back as `JSONDecoder` reads `JSONEncoder`'s JSON of them.
    static func expectWireForm(_ record: AlarmRecord, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = try #require(AlarmJSONWriter.json(of: record, dates: .secondsSince1970), sourceLocation: sourceLocation)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let reference = try encoder.encode(record)
        #expect(try Self.json(written) == Self.json(Array(reference)), sourceLocation: sourceLocation)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        #expect(
            try decoder.decode(AlarmRecord.self, from: Data(written)) == decoder.decode(AlarmRecord.self, from: reference),
            sourceLocation: sourceLocation)
    }

    /// As the control protocol writes alarms: dates as seconds since 1970. A date need not come
    /// back to the bit in that form (a `Date` counts from 2001), but exactly as it does from
    /// `JSONEncoder`'s JSON.
    static func expectWireForm(_ alarm: Alarm, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = try #require(AlarmJSONWriter.json(of: alarm, dates: .secondsSince1970), sourceLocation: sourceLocation)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let reference = try encoder.encode(alarm)
        #expect(try Self.json(written) == Self.json(Array(reference)), sourceLocation: sourceLocation)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        #expect(
            try decoder.decode(Alarm.self, from: Data(written)) == decoder.decode(Alarm.self, from: reference), sourceLocation: sourceLocation)
    }
}
