/// Decodes a chunked request body (RFC 9112 7.1) from the bytes of a connection as they arrive,
/// strictly, stopping at a limit.
///
/// Each byte is looked at once. A chunk whose size would take the body past `maximumBody` is
/// refused (413) as soon as its size line is read, before any of its data; a malformed size,
/// extension, data end or trailer is 400. Chunk extensions are allowed (RFC 9112 7.1.1) and
/// ignored; trailer fields are read as header fields are, and dropped.
struct ChunkedBodyDecoder {
    enum Progress: Equatable {
        case incomplete
        /// The body is complete: it took the first `length` bytes given.
        case complete(length: Int)
    }

    /// The longest chunk-size line (size and extensions) accepted.
    static let maximumSizeLine = 1024
    /// The trailer section, at most, in bytes and in fields.
    static let maximumTrailer = 4 * 1024
    static let maximumTrailerFields = 16

    private enum State {
        case sizeLine
        case data(remaining: Int)
        case dataEnd
        case trailer
    }

    let maximumBody: Int
    /// The body decoded so far.
    private(set) var body: [UInt8] = []
    private var state = State.sizeLine
    private var scanned = 0
    private var lineStart = 0
    private var trailerBytes = 0
    private var trailerFields = 0

    /// The most bytes a chunked body of at most `body` bytes may take with its framing (sizes,
    /// extensions, line ends, trailer): four times the body, room for chunks of a few bytes each,
    /// and the trailer.
    static func maximumWireBytes(forBody body: Int) -> Int {
        4 * body + maximumTrailer + maximumSizeLine
    }

    init(maximumBody: Int) {
        self.maximumBody = maximumBody
    }

    /// Looks at the bytes of `buffer` not seen yet; `buffer` must start with the bytes given
    /// before, unchanged.
    mutating func decode(_ buffer: ArraySlice<UInt8>) throws(HTTPRefusal) -> Progress {
        let base = buffer.startIndex
        while scanned < buffer.count {
            switch state {
            case .data(let remaining):
                let count = min(remaining, buffer.count - scanned)
                body.append(contentsOf: buffer[(base + scanned)..<(base + scanned + count)])
                scanned += count
                state = remaining == count ? .dataEnd : .data(remaining: remaining - count)
            case .dataEnd:
                guard buffer.count - scanned >= 2 else { return .incomplete }
                guard buffer[base + scanned] == .cr, buffer[base + scanned + 1] == .lf else {
                    throw HTTPRefusal(400, "a chunk's data is not followed by CR LF")
                }
                scanned += 2
                lineStart = scanned
                state = .sizeLine
            case .sizeLine, .trailer:
                guard let line = try nextLine(buffer) else { return .incomplete }
                if case .sizeLine = state {
                    let size = try chunkSize(line)
                    state = size == 0 ? .trailer : .data(remaining: size)
                } else if line.isEmpty {
                    return .complete(length: scanned)
                } else {
                    trailerFields += 1
                    guard trailerFields <= Self.maximumTrailerFields else { throw HTTPRefusal(431, "too many trailer fields") }
                    _ = try HTTPHeadParser.field(line)
                }
            }
        }
        return .incomplete
    }

    /// The next whole line without its CR LF, or `nil` if it has not all arrived.
    private mutating func nextLine(_ buffer: ArraySlice<UInt8>) throws(HTTPRefusal) -> ArraySlice<UInt8>? {
        let base = buffer.startIndex
        while scanned < buffer.count {
            let byte = buffer[base + scanned]
            if byte == .cr {
                guard scanned + 1 < buffer.count else { return nil }
                guard buffer[base + scanned + 1] == .lf else { throw HTTPRefusal(400, "a CR not followed by LF in a chunked body") }
                let line = buffer[(base + lineStart)..<(base + scanned)]
                scanned += 2
                lineStart = scanned
                return line
            }
            guard byte != .lf else { throw HTTPRefusal(400, "a line ending in LF without CR in a chunked body") }
            scanned += 1
            if case .trailer = state {
                trailerBytes += 1
                guard trailerBytes <= Self.maximumTrailer else { throw HTTPRefusal(431, "trailer larger than \(Self.maximumTrailer) bytes") }
            } else if scanned - lineStart > Self.maximumSizeLine {
                throw HTTPRefusal(400, "a chunk-size line longer than \(Self.maximumSizeLine) bytes")
            }
        }
        return nil
    }

    /// `chunk-size [chunk-ext]`: hexadecimal digits, then nothing or `;` extensions.
    private func chunkSize(_ line: ArraySlice<UInt8>) throws(HTTPRefusal) -> Int {
        let digits = line.prefix { $0.hexValue != nil }
        guard !digits.isEmpty else { throw HTTPRefusal(400, "a chunk size that is not hexadecimal") }
        var size = 0
        for digit in digits {
            size = size * 16 + Int(digit.hexValue!)
            guard size <= maximumBody - body.count else {
                throw HTTPRefusal(413, "request body larger than \(maximumBody) bytes")
            }
        }
        try Self.checkExtensions(line[digits.endIndex...])
        return size
    }

    /// `*( BWS ";" BWS name [ BWS "=" BWS value ] )`, value a token or a quoted string.
    private static func checkExtensions(_ text: ArraySlice<UInt8>) throws(HTTPRefusal) {
        var rest = text
        func skipWhitespace() {
            while let byte = rest.first, byte == .space || byte == .tab { rest.removeFirst() }
        }
        func token() -> Bool {
            let count = rest.prefix(while: \.isTokenCharacter).count
            rest.removeFirst(count)
            return count > 0
        }
        let malformed = HTTPRefusal(400, "a malformed chunk extension")
        while !rest.isEmpty {
            skipWhitespace()
            guard rest.first == UInt8(ascii: ";") else { throw malformed }
            rest.removeFirst()
            skipWhitespace()
            guard token() else { throw malformed }
            skipWhitespace()
            guard rest.first == UInt8(ascii: "=") else { continue }
            rest.removeFirst()
            skipWhitespace()
            if rest.first == UInt8(ascii: "\"") {
                rest.removeFirst()
                var closed = false
                while let byte = rest.popFirst() {
                    if byte == UInt8(ascii: "\"") {
                        closed = true
                        break
                    }
                    if byte == UInt8(ascii: "\\") {
                        guard let escaped = rest.popFirst(), escaped == .tab || escaped >= 0x20 && escaped != 0x7F else { throw malformed }
                    } else if byte < 0x20 && byte != .tab || byte == 0x7F {
                        throw malformed
                    }
                }
                guard closed else { throw malformed }
            } else if !token() {
                throw malformed
            }
        }
    }
}

extension UInt8 {
    /// The value of a hexadecimal digit.
    var hexValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
