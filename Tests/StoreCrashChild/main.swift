// The child of the crash-safety test: applies random client changes to a store until it is killed.
//
//     alarm-store-crash-child <storeDirectory> <seed>
//
// Protocol on stdout, one line per write(2), so a line the parent reads was written before death:
//
//     LOADED <count>
//     BEGIN schedule <uuid> <weekly|once|fixed|timer>   BEGIN cancel|pause|resume <uuid>
//     ACK schedule <uuid> <state>                       ACK cancel|pause|resume <uuid>
//
// A BEGIN comes before the call and its ACK only after the call returned, so a change with an ACK
// was acknowledged and must survive any kill; one with only a BEGIN was in flight.
// The clock never moves, so no alarm changes by itself: every change on disk is one of these.

import AlarmEngine
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTestKit
import AlarmSimulator
import AlarmTime
import FoundationEssentials
import Glibc
import Logging

enum Kind: String, CaseIterable {
    case weekly, once, fixed, timer
}

/// Writes one line to `descriptor` with write(2), unbuffered: once this returns the line is in the
/// pipe and survives the process.
func emit(_ line: String, to descriptor: Int32 = 1) {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 {
            if errno == EINTR { continue }
            exit(3)
        }
        offset += written
    }
}

func fail(_ message: String) -> Never {
    emit("alarm-store-crash-child: \(message)", to: 2)
    exit(2)
}

/// The child's state: the runtime, what it was told, and the random source that decides what next.
struct CrashChild {
    // 08:00 in Berlin: a relative alarm is never due exactly now as long as it avoids hour 8.
    static let now = ISO8601.parse("2026-06-01T06:00:00Z")!
    static let client = ClientID(rawValue: 1000)

    let runtime: AlarmRuntime
    var random: SeededRandomNumberGenerator
    var states: [Alarm.ID: Alarm.State] = [:]

    init(storeDirectory: String, seed: UInt64) async {
        random = SeededRandomNumberGenerator(seed: seed)
        let zone: TimeZoneRules
        do {
            zone = try TimeZoneDatabase().rules(named: "Europe/Berlin")
        } catch {
            fail("no Europe/Berlin zone: \(error)")
        }
        do {
            runtime = try AlarmRuntime(
                configuration: .init(
                    policy: EnginePolicy(maximumAlarms: 100_000, maximumAlarmsPerClient: 100_000), clockTrust: .always, storeDirectory: storeDirectory),
                clock: ManualWallClock(now: Self.now), timeZones: ManualTimeZoneProvider(zone),
                authorizer: FixedAuthorization(.authorized),
                logger: Logger(label: "alarm-store-crash-child", factory: { _ in SwiftLogNoOpLogHandler() }))
        } catch {
            fail("cannot start the runtime: \(error)")
        }
        for alarm in await runtime.alarms(for: Self.client) {
            states[alarm.id] = alarm.state
        }
    }

    mutating func run() async -> Never {
        emit("LOADED \(states.count)")
        while true {
            do {
                try await step()
            } catch {
                fail("a change was refused: \(error)")
            }
        }
    }

    private mutating func step() async throws {
        let roll = Int.random(in: 0..<100, using: &random)
        // Few alarms: mostly add. Many: mostly cancel. So the store stays between about 10 and 60.
        let cancelShare = states.count < 10 ? 5 : states.count > 60 ? 60 : 25
        let client = Self.client
        if roll < cancelShare, let id = pick() {
            emit("BEGIN cancel \(id)")
            try await runtime.perform(.cancel, id: id, client: client)
            states[id] = nil
            emit("ACK cancel \(id)")
        } else if roll < cancelShare + 15, let id = pick(.countdown) {
            emit("BEGIN pause \(id)")
            try await runtime.perform(.pause, id: id, client: client)
            states[id] = .paused
            emit("ACK pause \(id)")
        } else if roll < cancelShare + 30, let id = pick(.paused) {
            emit("BEGIN resume \(id)")
            try await runtime.perform(.resume, id: id, client: client)
            states[id] = .countdown
            emit("ACK resume \(id)")
        } else {
            let kind = Kind.allCases.randomElement(using: &random)!
            let id = randomID()
            let definition = definition(kind)
            emit("BEGIN schedule \(id) \(kind.rawValue)")
            let alarm = try await runtime.schedule(id: id, definition: definition, client: client)
            states[id] = alarm.state
            emit("ACK schedule \(id) \(alarm.state.rawValue)")
        }
    }

    /// One of the ids in `state`, in a stable order so that the seed alone decides.
    private mutating func pick(_ state: Alarm.State? = nil) -> Alarm.ID? {
        let candidates = states.filter { state == nil || $0.value == state }.keys.sorted { $0.uuidString < $1.uuidString }
        return candidates.randomElement(using: &random)
    }

    private mutating func randomID() -> Alarm.ID {
        withUnsafeBytes(of: (random.next(), random.next())) { bytes in
            UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                        bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        }
    }

    private mutating func definition(_ kind: Kind) -> AlarmDefinition {
        let presentation = AlarmPresentation(
            alert: .init(title: "Crash \(kind.rawValue)"),
            countdown: .init(title: "Counting", pauseButton: .pause),
            paused: .init(title: "Paused", resumeButton: .resume))
        let time = Alarm.Schedule.Relative.Time(
            hour: [0, 1, 2, 3, 4, 5, 6, 7, 9, 12, 18, 23].randomElement(using: &random)!,
            minute: Int.random(in: 0...59, using: &random))
        switch kind {
        case .weekly:
            let allDays: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]
            let days = Array(allDays.shuffled(using: &random).prefix(Int.random(in: 1...7, using: &random)))
            return AlarmDefinition(
                schedule: .relative(.init(time: time, repeats: .weekly(days))), countdownDuration: nil,
                presentation: presentation)
        case .once:
            return AlarmDefinition(
                schedule: .relative(.init(time: time, repeats: .never)), countdownDuration: nil,
                presentation: presentation)
        case .fixed:
            // Two days ahead or more, with at most an hour of pre-alert: nothing starts while the clock stands.
            let date = Self.now.addingTimeInterval(Double(Int.random(in: 2 * 86_400...60 * 86_400, using: &random)))
            let preAlert = Bool.random(using: &random) ? Double(Int.random(in: 60...3_600, using: &random)) : nil
            return AlarmDefinition(
                schedule: .fixed(date), countdownDuration: .init(preAlert: preAlert, postAlert: 300),
                presentation: presentation)
        case .timer:
            let seconds = Double(Int.random(in: 60...86_400, using: &random))
            return AlarmDefinition(
                schedule: nil, countdownDuration: .init(preAlert: seconds, postAlert: nil), presentation: presentation)
        }
    }
}

func startChild() async -> Never {
    let arguments = CommandLine.arguments
    guard arguments.count == 3, let seed = UInt64(arguments[2]) else {
        fail("usage: alarm-store-crash-child <storeDirectory> <seed>")
    }
    var child = await CrashChild(storeDirectory: arguments[1], seed: seed)
    await child.run()
}

await startChild()
