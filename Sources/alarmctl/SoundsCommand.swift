import AlarmClient
import ArgumentParser

/// `alarmctl sounds`: the sound files an alarm may name with `schedule --sound`.
struct SoundsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sounds",
        abstract: "List the sounds an alarm may ring with (schedule --sound NAME).",
        discussion: """
            The files of the device's sounds directory in the formats it plays (WAV, FLAC, Ogg \
            Vorbis, Opus, MP3), one name a line; a file is checked when an alarm is scheduled with \
            it. --json prints {"version":1,"sounds":[NAME...]}.
            """
    )

    @Flag(help: "Print JSON (a stable shape for scripts).")
    var json = false

    @OptionGroup var connection: SocketOptions

    func run() async throws {
        let session = try await connection.connect()
        defer { session.close() }
        let names = try await session.call { try await $0.sounds() }
        if json {
            print(JSONOutput.document(JSONOutput.Sounds(sounds: names)), terminator: "")
        } else if names.isEmpty {
            print("No sound files; alarms ring with the built-in tone.")
        } else {
            print(names.joined(separator: "\n"))
        }
    }
}
