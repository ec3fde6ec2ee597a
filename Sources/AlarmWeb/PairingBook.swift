import FoundationEssentials
import Glibc
import Logging
import Synchronization
import WebPairings

/// The paired browsers, kept in `pairings.json` in the page's state directory (``PairingsFile``,
/// mode 0600 in a 0700 directory): a file only the page's own user (and root) reads, so the
/// tokens are kept as they are.
public final class PairingBook: Sendable {
    private let directory: String
    private let logger: Logger
    private struct Loaded {
        var pairings: [Pairing]
        var version: PairingsFile.Version?
    }
    private let loaded: Mutex<Loaded>

    /// Reads the file; a missing one is an empty book, a damaged one is set aside (its browsers
    /// pair again) and logged.
    public init(directory: String, logger: Logger) {
        self.directory = directory
        self.logger = logger
        loaded = Mutex(Loaded(pairings: [], version: nil))
        loaded.withLock { Self.reload(&$0, directory: directory, logger: logger) }
    }

    /// Reads the file again if it changed on disk (`alarmctl web revoke` wrote it).
    private static func reload(_ loaded: inout Loaded, directory: String, logger: Logger) {
        let version = PairingsFile.version(in: directory)
        guard version != loaded.version || version == nil && !loaded.pairings.isEmpty else { return }
        loaded.version = version
        do {
            loaded.pairings = try PairingsFile.read(in: directory)
        } catch {
            let path = PairingsFile.path(in: directory)
            rename(path, path + ".damaged")
            loaded = Loaded(pairings: [], version: nil)
            logger.error("Paired browsers' file is damaged and was set aside; browsers must pair again", metadata: [
                "file": "\(path).damaged", "error": "\(error)",
            ])
        }
    }

    public var all: [Pairing] {
        loaded.withLock { loaded in
            Self.reload(&loaded, directory: directory, logger: logger)
            return loaded.pairings
        }
    }

    /// The pairing whose token this is (compared in constant time), noting that it was seen.
    func pairing(token: String, at now: Date) -> Pairing? {
        let presented = Array(token.utf8)
        return loaded.withLock { loaded in
            Self.reload(&loaded, directory: directory, logger: logger)
            guard let index = loaded.pairings.firstIndex(where: { Self.equal(Array($0.token.utf8), presented) }) else { return nil }
            loaded.pairings[index].lastSeen = now
            return loaded.pairings[index]
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

    /// Applies `update` to what is on disk now and writes it; nothing changes if it cannot be
    /// written.
    private func change(_ update: (inout [Pairing]) -> Void) throws {
        try loaded.withLock { loaded in
            Self.reload(&loaded, directory: directory, logger: logger)
            var changed = loaded.pairings
            update(&changed)
            try PairingsFile.write(changed, in: directory)
            loaded = Loaded(pairings: changed, version: PairingsFile.version(in: directory))
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
