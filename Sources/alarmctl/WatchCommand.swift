import AlarmKitCore
import AlarmTime
import ArgumentParser
import FoundationEssentials
import LinuxSupport
import UnixSignals

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print your alarms' changes as they happen, until Ctrl-C.",
        discussion: """
            First one line per alarm as it is now, then one line per change: the local time, the \
            id's first 8 characters, the new state (scheduled, countdown, paused, alerting, or gone \
            once it no longer exists) and the title. It keeps following if alarmd restarts. \
            Ctrl-C (SIGINT) or SIGTERM ends it with exit status 0. --json prints one object per \
            line: {"version":1,"time":INSTANT,"id":ID,"state":STATE,"title":TITLE or null}.             It also prints the intents of your alarms' buttons pressed at the device (see             `schedule --stop-intent`): a line "intent NAME (stop)", or with --json             {"version":1,"time":PRESSED,"id":ALARM,"intent":NAME,"button":"stop" or "secondary",            "parameters":{...},"delivery":ID}; those waiting for you come first. An intent stays             waiting (up to 24 hours, 16 per user) until a program acknowledges it:             --acknowledge does, so that a script reacting to it runs once per press.
            """
    )

    @Flag(help: "One JSON object per line.")
    var json = false

    @Flag(help: "Acknowledge each intent once printed, so it is not delivered again.")
    var acknowledge = false

    @OptionGroup var connection: SocketOptions

    func run() async throws {
        let session = try await connection.connect()
        defer { session.close() }
        // Trapped before subscribing, so that Ctrl-C at any moment from here on ends cleanly.
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let updates = session.client.alarmUpdates()
        let intents = session.client.intentDeliveries()
        let printer = ChangePrinter(json: json, zone: TimeText.localZone())
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in signals { return }
            }
            group.addTask {
                var known: [Alarm.ID: ChangePrinter.Known] = [:]
                for await alarms in updates {
                    let titles = await Self.titles(session)
                    known = printer.report(alarms, titles: titles, known: known, now: Date())
                }
            }
            group.addTask { [acknowledge] in
                // A delivery comes again after a reconnection until it is acknowledged.
                var printed: Set<UUID> = []
                for await delivery in intents {
                    // Acknowledging, it runs the script's intent: only if it took it, so that of
                    // two watchers one prints each press (the other comes again if this one quits).
                    if acknowledge, !printed.contains(delivery.id) {
                        guard (try? await session.client.takeIntent(delivery.id)) == true else { continue }
                    }
                    if printed.insert(delivery.id).inserted { printer.report(delivery) }
                    if acknowledge { try? await session.client.acknowledgeIntent(delivery.id) }
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Titles by id, if alarmd reports them; empty otherwise (the list goes on without them).
    static func titles(_ session: DaemonSession) async -> [Alarm.ID: String] {
        guard let records = try? await session.records(all: false) else { return [:] }
        var titles: [Alarm.ID: String] = [:]
        for record in records { titles[record.id] = record.definition.presentation.alert.title }
        return titles
    }
}

/// Turns successive lists into change lines, written to stdout at once.
struct ChangePrinter: Sendable {
    struct Known {
        var state: Alarm.State
        var title: String?
    }

    let json: Bool
    let zone: TimeZoneRules

    /// The longest state, `scheduled`, so that titles line up.
    static let stateWidth = 9

    /// Prints what changed from `known` to `alarms` (new alarms in list order, then those gone)
    /// and returns the new state.
    func report(_ alarms: [Alarm], titles: [Alarm.ID: String], known: [Alarm.ID: Known], now: Date) -> [Alarm.ID: Known] {
        var next: [Alarm.ID: Known] = [:]
        var text = ""
        for alarm in alarms {
            let title = titles[alarm.id] ?? known[alarm.id]?.title
            next[alarm.id] = Known(state: alarm.state, title: title)
            if known[alarm.id]?.state != alarm.state {
                text += line(alarm.id, state: alarm.state.rawValue, title: title, now: now)
            }
        }
        for (id, old) in known.sorted(by: { $0.key.uuidString < $1.key.uuidString }) where next[id] == nil {
            text += line(id, state: "gone", title: old.title, now: now)
        }
        if !text.isEmpty { writeToStandardOutput(text) }
        return next
    }

    func report(_ delivery: AlarmIntentDelivery) {
        if json {
            writeToStandardOutput(JSONOutput.line(JSONOutput.Intent(
                time: ISO8601.format(delivery.date, in: zone), id: delivery.alarmID.uuidString, intent: delivery.intent.name,
                button: delivery.button.rawValue, parameters: delivery.intent.parameters, delivery: delivery.id.uuidString)))
        } else {
            writeToStandardOutput(line(
                delivery.alarmID, state: "intent", title: "\(delivery.intent.name) (\(delivery.button.rawValue))", now: delivery.date))
        }
    }

    func line(_ id: Alarm.ID, state: String, title: String?, now: Date) -> String {
        if json {
            return JSONOutput.line(JSONOutput.Change(time: ISO8601.format(now, in: zone), id: id.uuidString, state: state, title: title))
        }
        var text = "\(TimeText.timeOfDay(now, in: zone))  \(id.uuidString.prefix(8))  \(state)"
        if let title { text += String(repeating: " ", count: max(0, Self.stateWidth - state.count)) + "  \(TerminalText.escaped(title))" }
        return text + "\n"
    }
}
