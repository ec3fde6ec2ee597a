import FoundationEssentials

/// One sound an alarm may ring with, as `soundFiles` lists it.
public struct SoundFileInfo: Codable, Hashable, Sendable {
    /// Where a sound comes from: the package's own (read-only) or the household's (added from the
    /// page or `alarmctl sounds add`, and deletable).
    public enum Origin: String, Codable, Hashable, Sendable {
        case packaged, household
    }

    public var name: String
    public var origin: Origin
    public var bytes: Int
    /// How many alarms, anyone's, ring with it.
    public var usedBy: Int

    public init(name: String, origin: Origin, bytes: Int, usedBy: Int) {
        self.name = name
        self.origin = origin
        self.bytes = bytes
        self.usedBy = usedBy
    }
}

/// `uploadSound`'s parameters: one piece of a household sound, in order.
///
/// The piece at `offset` 0 starts an upload of its own, and the report names it (`upload`); each
/// further piece carries that name and must start where the upload received so far ends (a piece
/// anywhere else is not taken, and the report says where to go on from: 0, with no `upload`,
/// when alarmd no longer knows it, after a restart). The piece with `final` set ends the file: it
/// is decoded and checked, and kept under `name` only if alarmd can ring with it; sent again
/// (its answer lost), it is answered `kept` again. Two uploads never mix: each has its own file.
public struct UploadSoundParameters: Codable, Hashable, Sendable {
    /// The largest piece, in bytes before base64: with its encoding it fits one request line
    /// (``ControlProtocol/maximumRequestSize``).
    public static let maximumPiece = 32 * 1024
    /// The largest sound file kept: an hour of MP3 at 256 kbit/s.
    public static let maximumFileBytes = 128 * 1024 * 1024

    public var name: String
    /// The upload this piece belongs to, from the report on its first piece; `nil` on the first.
    public var upload: String?
    public var offset: Int
    /// The piece's bytes, base64 (RFC 4648, with padding).
    public var data: String
    public var final: Bool

    public init(name: String, upload: String? = nil, offset: Int, data: Data, final: Bool) {
        self.name = name
        self.upload = upload
        self.offset = offset
        self.data = data.base64EncodedString()
        self.final = final
    }
}

/// What alarmd holds of an upload after a piece: which upload (`nil` when it knows none by the
/// name given), how many bytes (where the next piece starts), and whether the sound is now kept.
public struct UploadSoundReport: Codable, Hashable, Sendable {
    public var name: String
    public var upload: String?
    public var received: Int
    public var kept: Bool

    public init(name: String, upload: String?, received: Int, kept: Bool) {
        self.name = name
        self.upload = upload
        self.received = received
        self.kept = kept
    }
}

/// The rule for a household sound's name: a plain file name alarmd plays (`wav`, `flac`, `ogg`,
/// `oga`, `opus`, `mp3`), 1 to 100 characters of letters, digits, spaces and `-_.,'()+&`, not
/// starting with a dot or a space: it cannot leave the sounds directory or hide in it.
public enum SoundFileName {
    public static let fileExtensions = ["wav", "flac", "ogg", "oga", "opus", "mp3"]

    /// Why `name` cannot be a sound's name, or `nil` if it can.
    public static func problem(with name: String) -> String? {
        guard (1...100).contains(name.count), name.utf8.count <= 200 else { return "a sound's name is 1 to 100 characters" }
        guard !name.hasPrefix("."), !name.hasPrefix(" "), !name.hasSuffix(" ") else {
            return "a sound's name does not start with a dot or a space or end with a space"
        }
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || " -_.,'()+&".unicodeScalars.contains(scalar)
        }
        guard allowed else { return "a sound's name has only letters, digits, spaces and -_.,'()+&" }
        guard fileExtensions.contains(where: { name.lowercased().hasSuffix("." + $0) }) else {
            return "a sound's name ends in .wav, .flac, .ogg, .oga, .opus or .mp3"
        }
        return nil
    }
}

/// `deleteSound`'s parameters.
public struct SoundNameParameters: Codable, Hashable, Sendable {
    public var name: String

    public init(name: String) {
        self.name = name
    }
}
