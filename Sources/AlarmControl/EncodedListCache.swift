import FoundationEssentials
import Synchronization

/// A response's `result` whose JSON is already encoded: the session splices the bytes into the
/// response line instead of running them through `JSONEncoder` again.
public struct EncodedJSON: Encodable, Sendable {
    /// One JSON value, encoded as ``ControlProtocol`` encodes (dates as seconds since 1970).
    public let bytes: [UInt8]

    /// Encoding it through an `Encoder` (anywhere but a response line) parses the bytes back:
    /// correct, only not fast.
    public func encode(to encoder: any Encoder) throws {
        try ControlProtocol.makeDecoder().decode(JSONValue.self, from: Data(bytes)).encode(to: encoder)
    }
}

/// Lists encoded as JSON arrays from each element's cached encoding, so that listing 100 alarms
/// encodes only those that changed since the last list and copies the rest.
///
/// Encoding an alarm with `JSONEncoder` costs about 40 µs (its generic `Codable` machinery), so
/// a list of 100 took 4 ms, nearly all of it encoding unchanged alarms again. An element is
/// encoded again only when it no longer equals the cached one, and then by `fastEncoding` (for
/// alarms, ``AlarmJSONWriter``) when it can.
public final class EncodedListCache<Element: Encodable & Equatable & Sendable, Key: Hashable & Sendable>: Sendable {
    private struct Entry {
        var element: Element
        var json: [UInt8]
    }

    private let key: @Sendable (Element) -> Key
    private let fastEncoding: @Sendable (Element) -> [UInt8]?
    private let capacity: Int
    private let entries = Mutex<[Key: Entry]>([:])

    /// - Parameters:
    ///   - capacity: entries kept before those not in the list being encoded are dropped.
    ///   - key: what identifies an element across lists (an alarm's id).
    ///   - fastEncoding: the element's JSON as ``ControlProtocol``'s encoder writes it, without
    ///     that encoder, or `nil` to have the encoder write it.
    public init(
        capacity: Int = 4_096, key: @escaping @Sendable (Element) -> Key,
        fastEncoding: @escaping @Sendable (Element) -> [UInt8]? = { _ in nil }
    ) {
        self.capacity = capacity
        self.key = key
        self.fastEncoding = fastEncoding
    }

    /// `elements` as a JSON array, in their order.
    public func encode(_ elements: [Element]) throws -> EncodedJSON {
        try entries.withLock { entries in
            let encoder = ControlProtocol.makeEncoder()
            var bytes: [UInt8] = [UInt8(ascii: "[")]
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                let elementKey = key(element)
                if let cached = entries[elementKey], cached.element == element {
                    bytes += cached.json
                } else {
                    let json = try fastEncoding(element) ?? Array(encoder.encode(element))
                    entries[elementKey] = Entry(element: element, json: json)
                    bytes += json
                }
            }
            bytes.append(UInt8(ascii: "]"))
            if entries.count > max(capacity, elements.count) {
                // Alarms deleted long ago: keep only what this list holds.
                let current = Set(elements.map(key))
                entries = entries.filter { current.contains($0.key) }
            }
            return EncodedJSON(bytes: bytes)
        }
    }

    /// How many elements are cached (for tests).
    public var count: Int { entries.withLock { $0.count } }
}
