import FoundationEssentials
import Glibc
import Logging
import Synchronization

/// A browser the person at the clock let in: it holds `token` in an HttpOnly cookie.
public struct Pairing: Codable, Hashable, Sendable {
    public var id: String
    public var name: String
    var token: String
    public var created: Date
    public var lastSeen: Date
}

/// The paired browsers, kept in `pairings.json` in the page's state directory (mode 0600 by the
/// unit's umask): a file only the page's own user reads, so the tokens are kept as they are.
public final class PairingBook: Sendable {
    private let path: String
    private let logger: Logger
    private let pairings: Mutex<[Pairing]>

    /// Reads the file; a missing one is an empty book, a damaged one is set aside (its browsers
    /// pair again) and logged.
    public init(directory: String, logger: Logger) {
        path = directory + "/pairings.json"
        self.logger = logger
        var loaded: [Pairing] = []
        if let data = FileManager.default.contents(atPath: path) {
            do {
                loaded = try JSONDecoder.web.decode([Pairing].self, from: data)
            } catch {
                let aside = path + ".damaged"
                rename(path, aside)
                logger.error("Paired browsers' file is damaged and was set aside; browsers must pair again", metadata: [
                    "file": "\(aside)", "error": "\(error)",
                ])
            }
        }
        pairings = Mutex(loaded)
    }

    public var all: [Pairing] { pairings.withLock { $0 } }

    /// The pairing whose token this is (compared in constant time), noting that it was seen.
    func pairing(token: String, at now: Date) -> Pairing? {
        let presented = Array(token.utf8)
        return pairings.withLock { pairings in
            guard let index = pairings.firstIndex(where: { Self.equal(Array($0.token.utf8), presented) }) else { return nil }
            pairings[index].lastSeen = now
            return pairings[index]
        }
    }

    /// Adds a browser and saves the book; the new pairing holds a fresh random token.
    func add(name: String, at now: Date) throws -> Pairing {
        let pairing = Pairing(id: Self.randomText(bytes: 6), name: name, token: Self.randomText(bytes: 32), created: now, lastSeen: now)
        try change { $0.append(pairing) }
        logger.notice("Browser paired", metadata: ["pairing": "\(pairing.id)", "name": "\(name)"])
        return pairing
    }

    /// Revokes a pairing; `false` if there is none with this id.
    func revoke(id: String) throws -> Bool {
        var found = false
        try change { pairings in
            found = pairings.contains { $0.id == id }
            pairings.removeAll { $0.id == id }
        }
        if found { logger.notice("Browser pairing revoked", metadata: ["pairing": "\(id)"]) }
        return found
    }

    /// Applies `update` and writes the file (replaced whole, by rename); the change is undone if
    /// it cannot be written.
    private func change(_ update: (inout [Pairing]) -> Void) throws {
        try pairings.withLock { pairings in
            var changed = pairings
            update(&changed)
            try JSONEncoder.web.encode(changed).write(to: URL(fileURLWithPath: path), options: .atomic)
            pairings = changed
        }
    }

    private static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// `bytes` random bytes (the kernel's getrandom) as lowercase hex.
    static func randomText(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 15, radix: 16)
        }.joined()
    }
}

extension JSONEncoder {
    static var web: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    static var web: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
