import AlarmModel
import AlarmProtocol
import FoundationEssentials

/// The household's sounds from the page: a file sent in parts, heard, deleted.
///
/// `PUT /api/sounds/NAME?offset=N&upload=ID&final=1` carries up to ``maximumUploadBody`` bytes
/// of the file from `offset` (`application/octet-stream`; no `upload` on the first part);
/// alarmd takes them in pieces (``UploadSoundParameters``) and, with `final=1`, checks the file
/// and keeps it. The answer `{"name", "upload", "received", "kept"}` names the upload for the
/// next part and says where it starts (the page goes on from there after a lost part; from 0,
/// without `upload`, when alarmd no longer knows it). `POST /api/sounds/NAME/play` plays its first five seconds
/// (`{"volumePercent": P}` or the household's volume); `DELETE /api/sounds/NAME` deletes it.
extension WebApp {
    /// The largest part of a sound a paired browser sends in one request: a few round trips to
    /// alarmd each, and the page shows progress between them.
    static let maximumUploadBody = 256 * 1024

    /// The largest body `request` may have, from its head: a sound's part from a paired browser,
    /// else ``maximumBody``. Decided before the body is read, so only a paired browser is ever
    /// given room for more.
    func bodyLimit(for request: WebRequest) -> Int {
        guard Self.isSoundUpload(request), (try? session(request)) != nil else { return Self.maximumBody }
        return Self.maximumUploadBody
    }

    static func isSoundUpload(_ request: WebRequest) -> Bool {
        request.method == "PUT" && request.path.hasPrefix("/api/sounds/")
    }

    func routeSounds(_ route: (String, Int, String, String, String), _ request: WebRequest, path: String) async throws -> WebResponse {
        switch route {
        case ("PUT", 2, "sounds", let name, _):
            return try await receiveSoundPart(named: try Self.soundName(name), request)
        case ("DELETE", 2, "sounds", let name, _):
            try await link.deleteSound(named: try Self.soundName(name))
            await publishState()
            return .json(200, ["ok": true])
        case ("POST", 3, "sounds", let name, "play"):
            let volume = try PlayForm.decode(request.body).volumePercent
            let settings = try await link.settings()
            let decibels = volume.map { settings.decibels(percent: Double($0)) } ?? settings.settings.volumeDB
            try await link.trySound(volumeDB: decibels, sound: try Self.soundName(name))
            return .json(200, ["ok": true])
        default:
            throw WebError(404, "no such route: \(request.method) \(path)")
        }
    }

    private func receiveSoundPart(named name: String, _ request: WebRequest) async throws -> WebResponse {
        let query = Self.query(of: request.path)
        guard let offset = query["offset"].flatMap({ Int($0) }), (0...UploadSoundParameters.maximumFileBytes).contains(offset) else {
            throw WebError(400, "a sound's part needs ?offset=N (where it starts in the file, at most \(UploadSoundParameters.maximumFileBytes))")
        }
        let final = query["final"] == "1"
        let body = [UInt8](request.body)
        var sent = 0
        var report = UploadSoundReport(name: name, upload: query["upload"], received: offset, kept: false)
        repeat {
            let end = min(body.count, sent + UploadSoundParameters.maximumPiece)
            report = try await link.uploadSound(
                named: name, upload: report.upload, offset: offset + sent, piece: Data(body[sent..<end]), final: final && end == body.count)
            guard !report.kept, report.received == offset + end else { break }  // else the page goes on from `received`
            sent = end
        } while sent < body.count
        if report.kept { await publishState() }
        return .json(200, report)
    }

    /// A path segment's text: percent-escapes decoded as UTF-8 (the page sends
    /// `encodeURIComponent(name)`); a malformed escape is 400.
    static func soundName(_ segment: String) throws -> String {
        var bytes: [UInt8] = []
        var iterator = Array(segment.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next()?.hexValue, let low = iterator.next()?.hexValue else {
                throw WebError(400, "a malformed %-escape in the sound's name")
            }
            bytes.append(high << 4 | low)
        }
        guard let name = String(validating: bytes, as: UTF8.self) else { throw WebError(400, "the sound's name is not UTF-8") }
        if let problem = SoundFileName.problem(with: name) { throw WebError(400, problem) }
        return name
    }

    /// `?a=1&b=2` of a target, undecoded (the page sends digits only).
    static func query(of target: String) -> [String: String] {
        guard let query = target.split(separator: "?", maxSplits: 1).dropFirst().first else { return [:] }
        var fields: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            fields[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return fields
    }
}

/// `POST /api/sounds/NAME/play`'s body: a volume to hear it at, or none (the household's).
struct PlayForm: Decodable {
    var volumePercent: Int?

    static func decode(_ body: Data) throws -> PlayForm {
        if body.isEmpty { return PlayForm() }
        do {
            return try WebJSON.decode(PlayForm.self, from: body)
        } catch {
            throw WebError(400, "expected {\"volumePercent\": 0 to 100} or nothing")
        }
    }
}
