import FoundationEssentials

/// A snapshot file's bytes: the header line, its checksum and the JSON of the state.
extension AlarmStore {
    /// The bytes of a store file holding `state`.
    public static func encode(_ state: StoredState) throws -> [UInt8] {
        frame(Array(try jsonEncoder().encode(state)))
    }

    /// The JSON of snapshots and journal entries, keys sorted: the same state is the same bytes
    /// from every process, so two stores can be compared with `cmp` and a golden file stays true.
    static func jsonEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    static func frame(_ body: [UInt8]) -> [UInt8] {
        let header = "\(magic) \(formatVersion) \(String(CRC32.checksum(body[...]), radix: 16)) \(body.count)\n"
        return Array(header.utf8) + body
    }

    /// Why a store file's bytes are not a valid state.
    public enum DecodingProblem: Error, Hashable, Sendable, CustomStringConvertible {
        case notAStoreFile
        case unsupportedVersion(Int)
        case truncated(expected: Int, found: Int)
        case checksumMismatch
        case malformedContent(String)

        public var description: String {
            switch self {
            case .notAStoreFile: "not an alarmd store file (bad header)"
            case .unsupportedVersion(let version): "written by a newer alarmd (format version \(version))"
            case .truncated(let expected, let found): "truncated: \(found) of \(expected) bytes"
            case .checksumMismatch: "damaged: checksum mismatch"
            case .malformedContent(let reason): "malformed content: \(reason)"
            }
        }

        var fileTag: String {
            switch self {
            case .unsupportedVersion(let version): "version\(version)"
            default: "corrupt"
            }
        }
    }

    public static func decode(_ bytes: [UInt8]) throws(DecodingProblem) -> StoredState {
        let body = try verify(bytes)
        do {
            return try JSONDecoder().decode(StoredState.self, from: Data(body))
        } catch {
            throw .malformedContent("\(error)")
        }
    }

    /// Checks a store file's header, length and checksum; returns its body.
    static func verify(_ bytes: [UInt8]) throws(DecodingProblem) -> ArraySlice<UInt8> {
        guard let newline = bytes.prefix(128).firstIndex(of: UInt8(ascii: "\n")) else { throw .notAStoreFile }
        let fields = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ")
        guard fields.count == 4, fields[0] == magic, let version = Int(fields[1]) else { throw .notAStoreFile }
        guard version == formatVersion else { throw .unsupportedVersion(version) }
        guard let checksum = UInt32(fields[2], radix: 16), let length = Int(fields[3]), length >= 0 else {
            throw .notAStoreFile
        }
        let body = bytes[(newline + 1)...]
        guard body.count == length else { throw .truncated(expected: length, found: body.count) }
        guard CRC32.checksum(body) == checksum else { throw .checksumMismatch }
        return body
    }
}

extension AlarmStore {
    /// What a load found.
    public struct Loaded: Sendable {
        /// The state to resume from; `nil` on a first start (or when every copy was bad).
        public var state: StoredState?
        /// Files that were bad and moved aside, for the log and the display.
        public var problems: [String]
        /// Changes found in the journal (applied to `state`): a snapshot is due.
        public var journalEntries = 0
        /// The journal removes alarms by id alone, as written while ids were unique on the device:
        /// replayed over a later state, where two clients may use the id, such a removal could
        /// take the wrong alarm, so the state is to be written as a snapshot (which empties the
        /// journal) before anything else.
        public var journalHasRemovalsWithoutOwner = false
        /// Files that exist but could not be read, each left as it is. While there are any,
        /// `state` is what the other files hold (what is known, to ring), and the store writes
        /// nothing until a later ``load()`` reads them all.
        public var unreadable: [StoreError] = []
    }
}
