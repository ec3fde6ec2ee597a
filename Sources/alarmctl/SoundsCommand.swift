import AlarmClient
import AlarmModel
import AlarmProtocol
import ArgumentParser
import FoundationEssentials
import Glibc

/// `alarmctl sounds`: the sounds an alarm may ring with, and the household's own added,
/// heard and deleted.
struct SoundsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sounds",
        abstract: "List, add, play and delete the sounds an alarm may ring with (schedule --sound NAME).",
        subcommands: [List.self, Add.self, Play.self, Delete.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the sounds (the default).",
            discussion: """
                The package's sounds and the household's own, in the formats alarmd plays (WAV, \
                FLAC, Ogg Vorbis, Opus, MP3): one a line with its size, "added" for the \
                household's and how many alarms ring with it. --json prints \
                {"version":1,"sounds":[NAME...],"files":[{"name","origin","bytes","usedBy"}...]}.
                """
        )

        @Flag(help: "Print JSON (a stable shape for scripts).")
        var json = false

        @OptionGroup var connection: SocketOptions

        func run() async throws {
            let session = try await connection.connect()
            defer { session.close() }
            let files = try await session.call { try await $0.soundFiles() }
            if json {
                print(JSONOutput.document(JSONOutput.Sounds(sounds: files.map(\.name), files: files)), terminator: "")
            } else if files.isEmpty {
                print("No sound files; alarms ring with the built-in tone.")
            } else {
                let width = files.map(\.name.count).max() ?? 0
                for file in files {
                    var line = file.name + String(repeating: " ", count: width - file.name.count + 2) + SoundsCommand.size(file.bytes)
                    if file.origin == .household { line += ", added" }
                    if file.usedBy > 0 { line += ", used by \(file.usedBy) alarm" + (file.usedBy == 1 ? "" : "s") }
                    print(line)
                }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a sound file of the household's (administrators).",
            discussion: """
                FILE is sent to the clock, checked as an alarm would play it and kept under NAME \
                (the file's own name by default) if it can ring; a file it cannot decode is \
                refused with the reason. At most 128 MiB; a name the package or the household \
                already uses is refused.
                """
        )

        @Argument(help: ArgumentHelp("The sound file (WAV, FLAC, Ogg Vorbis, Opus, MP3).", valueName: "FILE"))
        var file: String

        @Option(help: ArgumentHelp("The name alarms give it (default: FILE's name).", valueName: "NAME"))
        var name: String?

        @OptionGroup var connection: SocketOptions

        func run() async throws {
            let kept = name ?? String(file.split(separator: "/").last ?? "")
            if let problem = SoundFileName.problem(with: kept) { throw CommandFailure.usage("invalid sound name \"\(kept)\": \(problem)") }
            let descriptor = open(file, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw CommandFailure.usage("cannot read \(file): \(String(cString: strerror(errno)))") }
            defer { close(descriptor) }
            let session = try await connection.connect()
            defer { session.close() }
            var offset = 0
            var piece = [UInt8](repeating: 0, count: UploadSoundParameters.maximumPiece)
            var pending = try Self.read(descriptor, into: &piece, file: file)
            while true {
                let next = pending == piece.count ? try Self.peek(descriptor, file: file) : nil
                let final = next == nil
                let report = try await session.call {
                    try await $0.uploadSound(named: kept, offset: offset, piece: Data(piece[..<pending]), final: final)
                }
                if report.kept {
                    print("Added \(kept) (\(SoundsCommand.size(report.received))).")
                    return
                }
                guard report.received == offset + pending, !final else {
                    throw CommandFailure.refused("the clock took \(report.received) bytes of \(kept), not \(offset + pending): another upload of that name is under way")
                }
                offset += pending
                piece[0] = next!
                pending = 1 + (try Self.read(descriptor, into: &piece, from: 1, file: file))
            }
        }

        /// Fills `buffer` from `start` as far as the file goes; how many bytes were read.
        static func read(_ descriptor: Int32, into buffer: inout [UInt8], from start: Int = 0, file: String) throws -> Int {
            var filled = start
            while filled < buffer.count {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else { throw CommandFailure.refused("cannot read \(file): \(String(cString: strerror(errno)))") }
                if count == 0 { break }
                filled += count
            }
            return filled - start
        }

        /// The next byte, or `nil` at the end: whether the piece just read is the last.
        static func peek(_ descriptor: Int32, file: String) throws -> UInt8? {
            var byte = [UInt8](repeating: 0, count: 1)
            return try read(descriptor, into: &byte, file: file) == 1 ? byte[0] : nil
        }
    }

    struct Play: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "play",
            abstract: "Play a sound's first five seconds on the clock (administrators).",
            discussion: "At the household's volume unless --volume says; refused while an alarm rings."
        )

        @Argument(help: ArgumentHelp("A name `alarmctl sounds` lists.", valueName: "NAME"))
        var name: String

        @Option(help: ArgumentHelp("The volume, 0 to 100 % (default: the household's).", valueName: "PERCENT"))
        var volume: String?

        @OptionGroup var connection: SocketOptions

        func run() async throws {
            let percent = try volume.map(WakeOptions.percent)
            let session = try await connection.connect()
            defer { session.close() }
            try await session.call { client in
                let decibels = if let percent { VolumePercent.decibels(percent: percent) } else { try await client.settings().settings.volumeDB }
                try await client.trySound(volumeDB: decibels, sound: name)
            }
            print("Playing \(name) for five seconds.")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a sound the household added (administrators).",
            discussion: "Refused while an alarm rings with it (give that alarm another sound first), and for the package's own."
        )

        @Argument(help: ArgumentHelp("A name `alarmctl sounds` lists as added.", valueName: "NAME"))
        var name: String

        @OptionGroup var connection: SocketOptions

        func run() async throws {
            let session = try await connection.connect()
            defer { session.close() }
            try await session.call { try await $0.deleteSound(named: name) }
            print("Deleted \(name).")
        }
    }

    /// `1.2 MB`, `880 kB`, `512 bytes`.
    static func size(_ bytes: Int) -> String {
        if bytes >= 1_000_000 { return "\(bytes / 1_000_000).\(bytes / 100_000 % 10) MB" }
        if bytes >= 1_000 { return "\(bytes / 1_000) kB" }
        return "\(bytes) bytes"
    }
}
