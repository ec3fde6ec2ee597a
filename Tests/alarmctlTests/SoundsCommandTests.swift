import AlarmProtocol
import AlarmTestKit
import FoundationEssentials
import Testing

/// `alarmctl sounds add`, `play` and `delete` against a running alarmd: a household's own sound
/// is sent in pieces, checked, kept in the state directory, rings for the alarm that names it,
/// and is deleted only once no alarm uses it.
@Suite(.timeLimit(.minutes(5))) struct SoundsCommandTests {
    @Test func aSoundAddedFromAShellIsListedUsedAndDeletedOnceFree() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        // Five seconds of FLAC: larger than one piece, so it goes in several.
        let file = daemon.directory.path + "/Dawn chorus.flac"
        try TestSoundFiles.write(TestSoundFiles.sine(frequency: 660, seconds: 5, rate: 44_100), to: file, as: .flac, rate: 44_100)
        let added = try await daemon.alarmctl(["sounds", "add", file])
        #expect(added.exitStatus == 0, "stderr: \(added.standardError)")
        #expect(added.standardOutput.hasPrefix("Added Dawn chorus.flac ("))
        #expect(TestFiles.names(in: daemon.directory.path + "/state/sounds") == ["Dawn chorus.flac"])

        let scheduled = try await daemon.alarmctl(["schedule", "--at", "07:00", "--title", "Wake", "--sound", "Dawn chorus.flac"])
        #expect(scheduled.exitStatus == 0, "stderr: \(scheduled.standardError)")
        let listed = try Output.json(try await daemon.alarmctl(["sounds", "--json"]).standardOutput)
        let files = Output.array(listed["files"])
        #expect(files.count == 2)
        #expect(files.first?["name"] == .string("Dawn chorus.flac"))
        #expect(files.first?["origin"] == .string("household"))
        #expect(files.first?["usedBy"] == .integer(1))
        let text = try await daemon.alarmctl(["sounds"])
        #expect(Output.lines(text.standardOutput).first?.hasSuffix(", added, used by 1 alarm") == true, "\(text.standardOutput)")

        let played = try await daemon.alarmctl(["sounds", "play", "Dawn chorus.flac", "--volume", "40%"])
        #expect(played.exitStatus == 0, "stderr: \(played.standardError)")

        let refused = try await daemon.alarmctl(["sounds", "delete", "Dawn chorus.flac"])
        #expect(refused.exitStatus == 1)
        #expect(refused.standardError.contains("is the sound of \"Wake\""), "\(refused.standardError)")
        let packaged = try await daemon.alarmctl(["sounds", "delete", "birds.wav"])
        #expect(packaged.standardError.contains("comes with alarmd"), "\(packaged.standardError)")

        let id = try Output.json(try await daemon.alarmctl(["list", "--json"]).standardOutput)["alarms"]
        guard case .string(let alarm)? = Output.array(id).first?["id"] else { Issue.record("no alarm listed"); return }
        #expect(try await daemon.alarmctl(["cancel", alarm]).exitStatus == 0)
        let deleted = try await daemon.alarmctl(["sounds", "delete", "Dawn chorus.flac"])
        #expect(deleted.exitStatus == 0, "stderr: \(deleted.standardError)")
        #expect(TestFiles.names(in: daemon.directory.path + "/state/sounds").isEmpty)
    }

    @Test func aFileThatIsNoSoundOrANameThatWouldEscapeIsRefusedWithTheReason() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        let text = daemon.directory.path + "/notes.mp3"
        try TestFiles.write(Array(repeating: UInt8(ascii: "x"), count: 50_000), to: text)
        let junk = try await daemon.alarmctl(["sounds", "add", text])
        #expect(junk.exitStatus == 1)
        #expect(junk.standardError.contains("notes.mp3 is not a sound alarmd can ring with"), "\(junk.standardError)")
        let escape = try await daemon.alarmctl(["sounds", "add", text, "--name", "../../etc/alarm.mp3"])
        #expect(escape.exitStatus == 64)
        #expect(escape.standardError.contains("invalid sound name"), "\(escape.standardError)")
        let missing = try await daemon.alarmctl(["sounds", "add", daemon.directory.path + "/absent.wav"])
        #expect(missing.exitStatus == 64)
        #expect(TestFiles.names(in: daemon.directory.path + "/state/sounds").isEmpty)
    }

    @Test func theHouseholdsDefaultSoundIsCheckedWhenChosenAndCannotBeDeleted() async throws {
        let daemon = try RunningDaemon()
        defer { daemon.stop() }
        let file = daemon.directory.path + "/chime.wav"
        try TestFiles.write(SineWAV.bytes(sampleRate: 48_000, bits: 16, seconds: 1, channels: [(880, 0.5)]), to: file)
        #expect(try await daemon.alarmctl(["sounds", "add", file]).exitStatus == 0)
        let before = try await daemon.alarmctl(["sounds", "default"])
        #expect(before.standardOutput == "Alarms without their own sound ring with the built-in tone.\n")
        let missing = try await daemon.alarmctl(["sounds", "default", "gone.wav"])
        #expect(missing.exitStatus == 1)
        #expect(missing.standardError.contains("sound \"gone.wav\" cannot ring"), "\(missing.standardError)")
        let chosen = try await daemon.alarmctl(["sounds", "default", "chime.wav"])
        #expect(chosen.exitStatus == 0, "stderr: \(chosen.standardError)")
        #expect(chosen.standardOutput == "Alarms without their own sound now ring with chime.wav.\n")
        let refused = try await daemon.alarmctl(["sounds", "delete", "chime.wav"])
        #expect(refused.exitStatus == 1)
        #expect(refused.standardError.contains("the household's default"), "\(refused.standardError)")
        #expect(try await daemon.alarmctl(["sounds", "default", "tone"]).exitStatus == 0)
        #expect(try await daemon.alarmctl(["sounds", "delete", "chime.wav"]).exitStatus == 0)
    }
}
