import AlarmDaemon
import AlarmProtocol
import AlarmTestKit
import FoundationEssentials
import Glibc
import Logging
import Synchronization
import Testing

/// The household's sounds: an upload in pieces kept only when it can ring, names that stay in
/// the directory, room kept for the alarms, deletion only of what no alarm uses.
@Suite struct SoundLibraryTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    let directory: TemporaryDirectory
    let library: SoundLibrary
    let announcements = Announcements()

    /// What the library told the appliance, in order.
    final class Announcements: Sendable {
        let names = Mutex<[Set<String>]>([])
        var last: Set<String>? { names.withLock { $0.last } }
    }

    init(reservedFreeBytes: Int = 0) throws {
        directory = try TemporaryDirectory()
        mkdir(directory.path + "/packaged", 0o755)
        try TestFiles.write(Self.wav(seconds: 0.5), to: directory.path + "/packaged/beep.wav")
        let announcements = announcements
        library = SoundLibrary(
            packagedDirectory: directory.path + "/packaged", householdDirectory: directory.path + "/state/sounds",
            reservedFreeBytes: reservedFreeBytes, logger: Self.logger
        ) { names, _ in announcements.names.withLock { $0.append(names) } }
        mkdir(directory.path + "/state", 0o700)
    }

    static func wav(seconds: Double) -> [UInt8] {
        SineWAV.bytes(sampleRate: 48_000, bits: 16, seconds: seconds, channels: [(880, 0.5)])
    }

    /// Sends `bytes` in pieces of the largest size, as alarmctl and the page do.
    func upload(_ bytes: [UInt8], as name: String) async throws -> UploadSoundReport {
        var offset = 0
        var upload: String?
        while true {
            let end = min(bytes.count, offset + UploadSoundParameters.maximumPiece)
            let report = try await library.receive(
                UploadSoundParameters(name: name, upload: upload, offset: offset, data: Data(bytes[offset..<end]), final: end == bytes.count))
            if end == bytes.count { return report }
            #expect(report.received == end && !report.kept && report.upload != nil)
            (offset, upload) = (end, report.upload)
        }
    }

    @Test func aSoundSentInPiecesIsKeptListedAndRingsFromTheHouseholdDirectory() async throws {
        let bytes = Self.wav(seconds: 2)  // 192 kB: six pieces
        let report = try await upload(bytes, as: "Morning birds.wav")
        #expect(report.name == "Morning birds.wav" && report.received == bytes.count && report.kept)
        let kept = directory.path + "/state/sounds/Morning birds.wav"
        #expect(TestFiles.read(kept).map { $0 == bytes } == true)
        var status = stat()
        #expect(stat(kept, &status) == 0 && status.st_mode & 0o777 == 0o640)
        #expect(TestFiles.names(in: directory.path + "/state/sounds") == ["Morning birds.wav"])
        #expect(announcements.last == ["Morning birds.wav"])
        #expect(await library.path(of: "Morning birds.wav") == kept)
        #expect(await library.path(of: "beep.wav") == directory.path + "/packaged/beep.wav")
        let files = await library.files(usage: ["Morning birds.wav": 2])
        #expect(files == [
            SoundFileInfo(name: "Morning birds.wav", origin: .household, bytes: bytes.count, usedBy: 2),
            SoundFileInfo(name: "beep.wav", origin: .packaged, bytes: Self.wav(seconds: 0.5).count, usedBy: 0),
        ])
    }

    @Test func aPieceNotWhereTheFileEndsIsNotTakenAndTheReportSaysWhereToGoOn() async throws {
        let bytes = Self.wav(seconds: 0.3)
        let first = try await library.receive(UploadSoundParameters(name: "a.wav", offset: 0, data: Data(bytes[..<1000]), final: false))
        #expect(first.received == 1000)
        let upload = try #require(first.upload)
        let skipped = try await library.receive(UploadSoundParameters(
            name: "a.wav", upload: upload, offset: 5000, data: Data(bytes[5000..<6000]), final: false))
        #expect(skipped == UploadSoundReport(name: "a.wav", upload: upload, received: 1000, kept: false))
        let unknown = try await library.receive(UploadSoundParameters(name: "a.wav", upload: "no such upload", offset: 10, data: Data([1]), final: false))
        #expect(unknown == UploadSoundReport(name: "a.wav", upload: nil, received: 0, kept: false))
        let rest = try await library.receive(UploadSoundParameters(
            name: "a.wav", upload: upload, offset: 1000, data: Data(bytes[1000...]), final: true))
        #expect(rest.kept)
        #expect(TestFiles.read(directory.path + "/state/sounds/a.wav").map { $0 == bytes } == true)
        // The last piece sent again (its answer lost) is answered as it was, and nothing changes.
        let again = try await library.receive(UploadSoundParameters(
            name: "a.wav", upload: upload, offset: 1000, data: Data(bytes[1000...]), final: true))
        #expect(again == UploadSoundReport(name: "a.wav", upload: upload, received: bytes.count, kept: true))
    }

    @Test func twoUploadsOfOneNameNeverMixAndTheSecondToFinishIsRefused() async throws {
        let (one, two) = (Self.wav(seconds: 0.3), SineWAV.bytes(sampleRate: 48_000, bits: 16, seconds: 0.3, channels: [(440, 0.5)]))
        let first = try await library.receive(UploadSoundParameters(name: "same.wav", offset: 0, data: Data(one[..<20_000]), final: false))
        let second = try await library.receive(UploadSoundParameters(name: "same.wav", offset: 0, data: Data(two[..<20_000]), final: false))
        #expect(first.upload != second.upload)
        let kept = try await library.receive(UploadSoundParameters(
            name: "same.wav", upload: first.upload, offset: 20_000, data: Data(one[20_000...]), final: true))
        #expect(kept.kept)
        do {
            _ = try await library.receive(UploadSoundParameters(
                name: "same.wav", upload: second.upload, offset: 20_000, data: Data(two[20_000...]), final: true))
            Issue.record("the second upload replaced the first")
        } catch let error as ControlError {
            #expect(error.code == .refused)
        }
        #expect(TestFiles.read(directory.path + "/state/sounds/same.wav").map { $0 == one } == true)
        #expect(TestFiles.names(in: directory.path + "/state/sounds") == ["same.wav"], "no upload left behind")
    }

    @Test func aFileThatCannotRingIsRefusedWithTheReasonAndNothingIsKept() async throws {
        var damaged = Self.wav(seconds: 1)
        damaged.replaceSubrange(0..<4, with: Array("JUNK".utf8))
        await #expect(throws: ControlError.self) { _ = try await upload(damaged, as: "broken.mp3") }
        do {
            _ = try await upload(Array("not a sound at all".utf8), as: "notes.ogg")
            Issue.record("a text file was kept as a sound")
        } catch let error as ControlError {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains("notes.ogg is not a sound alarmd can ring with"))
        }
        #expect(TestFiles.names(in: directory.path + "/state/sounds") == [])
    }

    @Test(arguments: ["../escape.wav", "sub/dir.wav", ".hidden.wav", " lead.wav", "notes.txt", "noextension", "", "tab\there.wav", "a.wav.", "b.mp3.."])
    func aNameThatWouldLeaveTheDirectoryOrIsNoSoundsIsRefused(name: String) async throws {
        await #expect(throws: ControlError.self) {
            _ = try await library.receive(UploadSoundParameters(name: name, offset: 0, data: Data(Self.wav(seconds: 0.1)), final: true))
        }
        #expect(TestFiles.names(in: directory.path + "/state/sounds").isEmpty)
        #expect(TestFiles.names(in: directory.path).sorted() == ["packaged", "state"])
    }

    @Test func aNameInUseIsRefusedTheHouseholdsAndThePackages() async throws {
        _ = try await upload(Self.wav(seconds: 0.2), as: "mine.wav")
        for name in ["mine.wav", "beep.wav"] {
            do {
                _ = try await upload(Self.wav(seconds: 0.2), as: name)
                Issue.record("\(name) was replaced")
            } catch let error as ControlError {
                #expect(error.code == .refused)
            }
        }
        #expect(TestFiles.read(directory.path + "/packaged/beep.wav").map { $0 == Self.wav(seconds: 0.5) } == true)
    }

    @Test func anUploadThatWouldLeaveTooLittleRoomForTheAlarmsIsRefused() async throws {
        let cramped = try SoundLibraryTests(reservedFreeBytes: Int.max / 2)
        do {
            _ = try await cramped.upload(Self.wav(seconds: 0.2), as: "big.wav")
            Issue.record("kept with no room")
        } catch let error as ControlError {
            #expect(error.code == .refused)
            #expect(error.message.contains("kept for the alarms"))
        }
    }

    @Test func aPiecePastTheLargestFileIsRefused() async throws {
        let started = try await library.receive(UploadSoundParameters(name: "long.mp3", offset: 0, data: Data([0]), final: false))
        for offset in [UploadSoundParameters.maximumFileBytes + 1, Int.max] {
            do {
                _ = try await library.receive(UploadSoundParameters(
                    name: "long.mp3", upload: started.upload, offset: offset, data: Data([0]), final: true))
                Issue.record("a piece at \(offset) was taken")
            } catch let error as ControlError {
                #expect(error.code == .malformed)
            }
        }
    }

    @Test func deletingRefusesASoundInUseAndThePackagesOwn() async throws {
        _ = try await upload(Self.wav(seconds: 0.2), as: "mine.wav")
        let kept = directory.path + "/state/sounds/mine.wav"
        do {
            // Asked once the file is out of reach: a check of the name now fails.
            try await library.delete("mine.wav") { [library] in
                #expect(await library.path(of: "mine.wav") != kept)
                return ["Wake up"]
            }
            Issue.record("deleted while an alarm uses it")
        } catch let error as ControlError {
            #expect(error.message.contains("\"Wake up\""))
        }
        #expect(TestFiles.read(kept).map { $0 == Self.wav(seconds: 0.2) } == true, "put back")
        await #expect(throws: ControlError.self) { try await library.delete("beep.wav") { [] } }
        await #expect(throws: ControlError.self) { try await library.delete("nothing.wav") { [] } }
        try await library.delete("mine.wav") { [] }
        #expect(TestFiles.names(in: directory.path + "/state/sounds").isEmpty)
        #expect(announcements.last == [])
        #expect(await library.path(of: "mine.wav") == directory.path + "/packaged/mine.wav")
    }

    @Test func unfinishedUploadsAreClearedAtStart() async throws {
        let started = try await library.receive(UploadSoundParameters(name: "half.wav", offset: 0, data: Data([1, 2, 3]), final: false))
        #expect(TestFiles.names(in: directory.path + "/state/sounds") == [".upload-" + (started.upload ?? "")])
        await library.clearAbandonedUploads(all: true)
        #expect(TestFiles.names(in: directory.path + "/state/sounds").isEmpty)
    }

    @Test func theProtocolsNameRuleAcceptsEveryFormatTheReaderPlays() {
        for format in ["wav", "flac", "ogg", "oga", "opus", "mp3", "MP3"] {
            #expect(SoundFileName.problem(with: "Rain on the roof (3).\(format)") == nil)
        }
        #expect(SoundFileName.problem(with: "Café à l'aube.flac") == nil)
    }
}
