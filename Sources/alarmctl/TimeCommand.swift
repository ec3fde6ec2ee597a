import AlarmClient
import AlarmModel
import AlarmProtocol
import AlarmTime
import ArgumentParser
import FoundationEssentials

/// `alarmctl time set INSTANT`: sets the clock's time from a shell, as the phone page does.
struct TimeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "time",
        abstract: "Set the clock's time (administrators).",
        subcommands: [SetTime.self]
    )

    struct SetTime: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set the clock to INSTANT (administrators).",
            discussion: """
                For a clock whose time nothing confirmed (after a power cut with no network: \
                `alarmctl status` says NOT CONFIRMED). INSTANT is ISO 8601 with its offset, like \
                2026-11-28T07:05:00+01:00. Refused while NTP keeps the clock synchronised and \
                disagrees by more than 30 s (NTP wins), and for a time before alarmd's release or \
                years ahead. An alarm ringing goes on ringing; alarms the change passes over ring \
                at once within the grace period, else are recorded as missed.
                """
        )

        @Argument(help: ArgumentHelp("The time, ISO 8601 with its offset.", valueName: "INSTANT"))
        var instant: String

        @OptionGroup var connection: SocketOptions

        func validate() throws {
            guard ISO8601.parse(instant) != nil else {
                throw ValidationError("\"\(instant)\" is not an instant like 2026-11-28T07:05:00+01:00 (ISO 8601 with its offset)")
            }
        }

        func run() async throws {
            guard let time = ISO8601.parse(instant) else { throw CommandFailure.usage("bad instant \(instant)") }
            let session = try await connection.connect()
            defer { session.close() }
            let report = try await session.call { try await $0.setTime(time, from: .shell) }
            let zone = TimeText.localZone()
            print("Clock set: \(TimeText.dateAndTime(report.previous, in: zone)) -> \(TimeText.dateAndTime(report.now, in: zone))"
                + (report.timeSource.map { " (time source: \($0.rawValue))" } ?? ""))
        }
    }
}
