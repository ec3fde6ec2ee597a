import CSndFile
import Glibc

/// A sound file decoded as a stream of signed 16-bit frames by libsndfile: WAV, FLAC, Ogg Vorbis,
/// Opus and MP3 (libsndfile 1.1 and later reads MP3 through libmpg123), whatever their sample
/// format. Nothing is read whole: a 60-minute MP3 costs its decoder's state and the caller's
/// buffer.
///
/// Not `Sendable`: one thread opens it, reads it and closes it (the playback's writer, or a check).
public final class SoundFileReader {
    public let path: String
    public let sampleRate: Int
    public let channels: Int
    /// The container and its encoding as libsndfile names them ("FLAC", "MPEG Layer 3"...).
    public let format: String
    /// Frames in the file as its header says (an estimate for MP3), if it says.
    public let frames: Int?
    private let handle: OpaquePointer

    /// Opens `path` for decoding. Only a regular file is read: a FIFO or a device named as a
    /// sound would block the writer, so it is opened without blocking and refused.
    /// - Throws: ``SoundFileError`` with the `errno` when the file cannot be opened, else with
    ///   libsndfile's reason (not a sound file it knows, a damaged header).
    public init(path: String) throws(SoundFileError) {
        self.path = path
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw SoundFileError(path: path, errno: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw SoundFileError(path: path, errno: code)
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw SoundFileError(path: path, reason: "not a regular file")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        var info = SF_INFO()
        // libsndfile closes the descriptor itself from here on (sf_close, or a failed open).
        guard let handle = sf_open_fd(descriptor, Int32(SFM_READ), &info, 1) else {
            throw SoundFileError(path: path, reason: String(cString: sf_strerror(nil)))
        }
        self.handle = handle
        sampleRate = Int(info.samplerate)
        channels = Int(info.channels)
        frames = info.frames > 0 && info.frames < Int64(Int.max) ? Int(info.frames) : nil
        format = Self.formatName(info.format)
        // Lossy decoders overshoot full scale a little; clipped, a loud MP3 distorts softly
        // instead of wrapping around into full-scale clicks.
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
    }

    deinit {
        sf_close(handle)
    }

    /// Decodes up to `frames` frames into the start of `buffer` (which holds at least `frames` ×
    /// ``channels`` samples); fewer only at the end of the file, `0` past it.
    /// - Throws: ``SoundFileError`` when the data cannot be decoded.
    public func read(into buffer: inout [Int16], frames: Int) throws(SoundFileError) -> Int {
        precondition(buffer.count >= frames * channels, "the buffer holds fewer than \(frames) frames")
        let handle = handle
        let got = buffer.withUnsafeMutableBufferPointer { Int(sf_readf_short(handle, $0.baseAddress, sf_count_t(frames))) }
        if got < frames, sf_error(handle) != Int32(SF_ERR_NO_ERROR) {
            throw SoundFileError(path: path, reason: "cannot be decoded: " + String(cString: sf_strerror(handle)))
        }
        return got
    }

    /// Back to the first frame, for a sound that loops.
    public func rewind() throws(SoundFileError) {
        guard sf_seek(handle, 0, SEEK_SET) == 0 else {
            throw SoundFileError(path: path, reason: "cannot go back to its start: " + String(cString: sf_strerror(handle)))
        }
    }

    /// "FLAC", "OGG (Opus)", "MPEG Layer 3", "WAV (Signed 16 bit PCM)": the major format, and its
    /// encoding where the name alone does not say it.
    private static func formatName(_ format: Int32) -> String {
        func name(_ code: Int32) -> String? {
            var info = SF_FORMAT_INFO()
            info.format = code
            let size = Int32(MemoryLayout<SF_FORMAT_INFO>.size)
            guard sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &info, size) == 0, let text = info.name else { return nil }
            return String(cString: text)
        }
        let major = name(format & Int32(SF_FORMAT_TYPEMASK))
        let subtype = name(format & Int32(SF_FORMAT_SUBMASK))
        switch (major, subtype) {
        case (let major?, let subtype?) where !major.containsIgnoringCase(subtype): return "\(major.shortFormatName) (\(subtype))"
        case (let major?, _): return major.shortFormatName
        case (nil, let subtype?): return subtype
        case (nil, nil): return "unknown format"
        }
    }
}

extension String {
    /// "WAV (Microsoft)" → "WAV": libsndfile's major names carry their origin in brackets.
    fileprivate var shortFormatName: String {
        guard let bracket = firstIndex(of: "(") else { return self }
        return String(self[..<bracket]).trimmingTrailingSpaces
    }

    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }

    fileprivate func containsIgnoringCase(_ other: String) -> Bool {
        lowercased().contains(other.lowercased())
    }
}

/// Why a sound file cannot be played: what the path is, and the reason in words.
public struct SoundFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    /// The `errno` of a file that cannot be opened (`ENOENT`, `EACCES`...), if that is why.
    public var errno: Int32?

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public init(path: String, errno code: Int32) {
        self.path = path
        self.reason = "cannot be opened: " + String(cString: strerror(code))
        self.errno = code
    }

    public var description: String { "\(path): \(reason)" }
}
