/// The request line and header fields of one HTTP/1.x request, as RFC 9112 writes them.
struct HTTPRequestHead: Sendable, Equatable {
    struct Field: Sendable, Equatable {
        /// In lower case: field names are case-insensitive.
        var name: String
        /// Without the whitespace around it.
        var value: String
    }

    var method: String
    /// The request target as sent: origin form (`/api/state?x`) or absolute form (`http://host/`).
    var target: String
    /// `1` for HTTP/1.1 (and later 1.x), `0` for HTTP/1.0.
    var minorVersion: Int
    var fields: [Field]

    /// Every value of field `name` (lower case), in the order sent.
    func values(_ name: String) -> [String] {
        fields.filter { $0.name == name }.map(\.value)
    }

    /// The one value of field `name`, `nil` if it is absent.
    func value(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// Whether the comma-separated field `name` holds `token` (compared without case).
    func listContains(_ name: String, token: String) -> Bool {
        values(name).contains { value in
            value.split(separator: ",").contains { $0.trimmingASCIIWhitespace().lowercased() == token }
        }
    }
}

/// A request refused while it was read: the status to answer and why, in a few words.
struct HTTPRefusal: Error, Equatable, CustomStringConvertible {
    var status: Int
    var reason: String

    init(_ status: Int, _ reason: String) {
        self.status = status
        self.reason = reason
    }

    var description: String { "\(status) \(reason)" }
}

/// What a request may be: the limits the connection layer holds every request to.
struct HTTPLimits: Sendable {
    /// The request line, at most (a longer one is 414).
    var maximumRequestLine = 8 * 1024
    /// The request line and every header field together, at most (more is 431).
    var maximumHead = 16 * 1024
    /// Header fields, at most (more is 431). Browsers send about fifteen.
    var maximumFields = 64
    /// The body, at most (a longer one is 413, before any of it is read).
    var maximumBody = WebApp.maximumBody
}

/// Reads the head of a request from the bytes of a connection as they arrive, strictly and in
/// one pass: each byte is looked at once, however the bytes are split into reads, so a head
/// costs time in proportion to its length and never more than ``HTTPLimits/maximumHead`` of
/// memory.
///
/// Strict as RFC 9112 allows a server to be: lines end in CR LF (a bare CR or LF is refused);
/// no whitespace before a field's colon; no line folding; no control character but tab in a
/// value; a method and field names of token characters; one space between the request line's
/// parts; a target in origin form (`/path?query`), absolute form (`http://host/path`) or `*`
/// for `OPTIONS`; version `HTTP/1.0` or `HTTP/1.x` (another major version is 505). Empty lines
/// before the request line are skipped, as RFC 9112 2.2 advises.
struct HTTPHeadParser {
    enum Progress: Equatable {
        /// More bytes are needed.
        case incomplete
        /// The head is complete: it took the first `length` bytes given.
        case complete(HTTPRequestHead, length: Int)
    }

    let limits: HTTPLimits
    /// How many of the bytes given so far have been looked at.
    private var scanned = 0
    /// Where the line being read starts.
    private var lineStart = 0
    private var requestLine: (method: String, target: String, minorVersion: Int)?
    private var fields: [HTTPRequestHead.Field] = []

    init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
    }

    /// Whether any byte of a request has arrived (empty lines before it do not count).
    var hasStarted: Bool { scanned > lineStart || requestLine != nil }

    /// Looks at the bytes of `buffer` not seen yet; `buffer` must start with the bytes given
    /// before, unchanged (the connection appends what it reads).
    mutating func parse(_ buffer: ArraySlice<UInt8>) throws(HTTPRefusal) -> Progress {
        let base = buffer.startIndex
        while scanned < buffer.count {
            let byte = buffer[base + scanned]
            scanned += 1
            if byte == .cr {
                guard scanned < buffer.count else {
                    scanned -= 1  // look at the CR again once the next byte is here
                    break
                }
                guard buffer[base + scanned] == .lf else { throw HTTPRefusal(400, "a CR not followed by LF") }
                scanned += 1
                guard scanned <= limits.maximumHead else { throw Self.headTooLarge(limits) }
                let line = buffer[(base + lineStart)..<(base + scanned - 2)]
                lineStart = scanned
                if let head = try take(line) { return .complete(head, length: scanned) }
            } else if byte == .lf {
                throw HTTPRefusal(400, "a line ending in LF without CR")
            } else if requestLine == nil, scanned - lineStart > limits.maximumRequestLine {
                throw HTTPRefusal(414, "request line longer than \(limits.maximumRequestLine) bytes")
            }
            if scanned > limits.maximumHead { throw Self.headTooLarge(limits) }
        }
        return .incomplete
    }

    private static func headTooLarge(_ limits: HTTPLimits) -> HTTPRefusal {
        HTTPRefusal(431, "request head larger than \(limits.maximumHead) bytes")
    }

    /// A whole line (without its CR LF); the head once the empty line that ends it is taken.
    private mutating func take(_ line: ArraySlice<UInt8>) throws(HTTPRefusal) -> HTTPRequestHead? {
        guard let request = requestLine else {
            if !line.isEmpty { requestLine = try Self.requestLine(line) }
            return nil
        }
        if line.isEmpty {
            return HTTPRequestHead(method: request.method, target: request.target, minorVersion: request.minorVersion, fields: fields)
        }
        guard fields.count < limits.maximumFields else {
            throw HTTPRefusal(431, "more than \(limits.maximumFields) header fields")
        }
        fields.append(try Self.field(line))
        return nil
    }

    static func requestLine(_ line: ArraySlice<UInt8>) throws(HTTPRefusal) -> (method: String, target: String, minorVersion: Int) {
        let parts = line.split(separator: .space, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw HTTPRefusal(400, "the request line is not METHOD TARGET VERSION, one space apart")
        }
        let (method, target, version) = (parts[0], parts[1], parts[2])
        guard method.allSatisfy(\.isTokenCharacter) else { throw HTTPRefusal(400, "the method is not a token") }
        // Visible ASCII only: spaces and controls have no place in a target, and a browser
        // percent-encodes everything else.
        guard target.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw HTTPRefusal(400, "the request target has a byte that is not visible ASCII")
        }
        let targetText = String(decoding: target, as: UTF8.self)
        let lowercased = targetText.lowercased()
        guard targetText.hasPrefix("/") || lowercased.hasPrefix("http://") || lowercased.hasPrefix("https://")
            || (targetText == "*" && method.elementsEqual("OPTIONS".utf8))
        else {
            throw HTTPRefusal(400, "the request target is not a path")
        }
        let minorVersion = try Self.minorVersion(version)
        return (String(decoding: method, as: UTF8.self), targetText, minorVersion)
    }

    private static func minorVersion(_ version: ArraySlice<UInt8>) throws(HTTPRefusal) -> Int {
        let bytes = Array(version)
        guard bytes.count == 8, bytes.starts(with: Array("HTTP/".utf8)), bytes[6] == UInt8(ascii: "."),
              bytes[5].isDigit, bytes[7].isDigit
        else {
            throw HTTPRefusal(400, "the version is not HTTP/DIGIT.DIGIT")
        }
        guard bytes[5] == UInt8(ascii: "1") else { throw HTTPRefusal(505, "only HTTP/1.x is served") }
        return bytes[7] == UInt8(ascii: "0") ? 0 : 1
    }

    /// `name: value`, a field line of RFC 9112 5 (and of a chunked body's trailer).
    static func field(_ line: ArraySlice<UInt8>) throws(HTTPRefusal) -> HTTPRequestHead.Field {
        guard let first = line.first, first != .space, first != .tab else {
            throw HTTPRefusal(400, "a folded header line (obsolete line folding is refused)")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw HTTPRefusal(400, "a header line without a colon")
        }
        let name = line[..<colon]
        guard !name.isEmpty, name.allSatisfy(\.isTokenCharacter) else {
            throw HTTPRefusal(400, "a header name that is not a token (or whitespace before its colon)")
        }
        var value = line[(colon + 1)...]
        while let byte = value.first, byte == .space || byte == .tab { value.removeFirst() }
        while let byte = value.last, byte == .space || byte == .tab { value.removeLast() }
        guard value.allSatisfy({ $0 == .tab || $0 >= 0x20 && $0 != 0x7F }) else {
            throw HTTPRefusal(400, "a control character in the value of \(String(decoding: name, as: UTF8.self))")
        }
        // Field values are ISO 8859-1 by history (RFC 9110 5.5): every byte stays one character.
        return HTTPRequestHead.Field(
            name: String(decoding: name, as: UTF8.self).lowercased(),
            value: String(String.UnicodeScalarView(value.map { Unicode.Scalar($0) })))
    }
}

extension UInt8 {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")

    var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }

    /// `tchar` of RFC 9110 5.6.2: what methods, field names and transfer codings are made of.
    var isTokenCharacter: Bool { Self.tokenCharacters[Int(self)] }

    private static let tokenCharacters: [Bool] = (0...255).map { byte in
        let character = UInt8(byte)
        return character.isDigit || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(character | 0x20)
            || Array("!#$%&'*+-.^_`|~".utf8).contains(character)
    }
}

extension StringProtocol {
    /// Without spaces and tabs at either end (HTTP's optional whitespace).
    func trimmingASCIIWhitespace() -> Substring {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
