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
        subcommands: [List.self, Add.self, Play.self, Delete.self, Default.self],
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
            var status = stat()
            if fstat(descriptor, &status) == 0, Int(status.st_size) > UploadSoundParameters.maximumFileBytes {
                throw CommandFailure.usage("\(file) is larger than a sound may be (\(UploadSoundParameters.maximumFileBytes / 1_048_576) MiB)")
            }
            let session = try await connection.connect()
            defer { session.close() }
            var report = UploadSoundReport(name: kept, upload: nil, received: 0, kept: false)
            var restarts = 0
            while !report.kept {
                let offset = report.received
                guard lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
                    throw CommandFailure.refused("cannot read \(file): \(String(cString: strerror(errno)))")
                }
                var piece = [UInt8](repeating: 0, count: UploadSoundParameters.maximumPiece)
                let count = try Self.read(descriptor, into: &piece, file: file)
                let final = try count < piece.count || Self.atEnd(descriptor, file: file)
                let upload = report.upload
                report = try await session.call {
                    try await $0.uploadSound(named: kept, upload: upload, offset: offset, piece: Data(piece[..<count]), final: final)
                }
                if report.upload == nil {
                    // alarmd no longer knows this upload (it restarted): once more from the start.
                    restarts += 1
                    guard restarts <= 2 else { throw CommandFailure.refused("alarmd kept losing the upload of \(kept)") }
                } else if !report.kept, report.received != offset + count {
                    throw CommandFailure.refused("alarmd holds \(report.received) bytes of \(kept), not \(offset + count)")
                }
            }
            print("Added \(kept) (\(SoundsCommand.size(report.received))).")
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

        /// Whether the file is read to its end (a full piece may be the last one).
        static func atEnd(_ descriptor: Int32, file: String) throws -> Bool {
            var byte = [UInt8](repeating: 0, count: 1)
            let more = try read(descriptor, into: &byte, file: file) == 1
            if more { lseek(descriptor, -1, SEEK_CUR) }
            return !more
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
                let settings = try await client.settings()
                let decibels = percent.map(settings.decibels(percent:)) ?? settings.settings.volumeDB
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

    struct Default: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "default",
            abstract: "Show or set what alarms that name no sound ring with (setting it: administrators).",
            discussion: """
                Without NAME, prints it. NAME is a sound `alarmctl sounds` lists, checked as an \
                alarm's sound is, or `tone` for the built-in tone. AlarmKit apps' alarms with the \
                default sound ring with it too; a sound that is the default cannot be deleted.
                """
        )

        @Argument(help: ArgumentHelp("A sound's name, or tone.", valueName: "NAME"))
        var name: String?

        @OptionGroup var connection: SocketOptions

        func run() async throws {
            let session = try await connection.connect()
            defer { session.close() }
            var settings = try await session.call { try await $0.settings() }.settings
            guard let name else {
                print("Alarms without their own sound ring with \(settings.defaultSoundName ?? "the built-in tone").")
                return
            }
            settings.defaultSound = name
            let kept = try await session.call { try await $0.setSettings(settings) }
            print("Alarms without their own sound now ring with \(kept.defaultSoundName ?? "the built-in tone").")
        }
    }

    /// `1.2 MB`, `880 kB`, `512 bytes`.
    static func size(_ bytes: Int) -> String {
        if bytes >= 1_000_000 { return "\(bytes / 1_000_000).\(bytes / 100_000 % 10) MB" }
        if bytes >= 1_000 { return "\(bytes / 1_000) kB" }
        return "\(bytes) bytes"
    }
}
