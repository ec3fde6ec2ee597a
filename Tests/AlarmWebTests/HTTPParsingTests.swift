import Testing

@testable import AlarmWeb

/// The page server's strict HTTP/1.1 reading: heads, body framing and chunked bodies, fed as a
/// connection's reads would split them.
struct HTTPHeadParserTests {
    static let request = Array(
        "\r\nPOST /api/alarms?x=1 HTTP/1.1\r\nHost: clock.local:8080\r\nContent-Type:application/json \r\nX-Empty:\r\n\r\nrest".utf8)

    /// Parses `bytes` given in pieces of `piece` bytes, as reads would deliver them.
    static func parse(_ bytes: [UInt8], piece: Int = .max, limits: HTTPLimits = HTTPLimits()) throws(HTTPRefusal) -> HTTPHeadParser.Progress {
        var parser = HTTPHeadParser(limits: limits)
        var end = 0
        repeat {
            end = min(bytes.count, end + piece)
            let progress = try parser.parse(bytes[..<end])
            if progress != .incomplete { return progress }
        } while end < bytes.count
        return .incomplete
    }

    @Test func aHeadIsTheSameHoweverTheReadsSplitIt() throws {
        let whole = try Self.parse(Self.request)
        guard case .complete(let head, let length) = whole else {
            Issue.record("not complete: \(whole)")
            return
        }
        #expect(head.method == "POST" && head.target == "/api/alarms?x=1" && head.minorVersion == 1)
        #expect(head.fields == [
            .init(name: "host", value: "clock.local:8080"), .init(name: "content-type", value: "application/json"),
            .init(name: "x-empty", value: ""),
        ])
        #expect(Array(Self.request[length...]) == Array("rest".utf8))
        for piece in 1...8 {
            #expect(try Self.parse(Self.request, piece: piece) == whole, "pieces of \(piece)")
        }
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\nHost: a\r\n\r\n", 400),  // bare LF
        ("GET / HTTP/1.1\rHost: a\r\n\r\n", 400),  // CR without LF
        ("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400),  // whitespace before the colon
        ("GET / HTTP/1.1\r\nHost a\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nX: a\u{1}b\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nX: a\u{7F}\r\n\r\n", 400),
        ("G(T / HTTP/1.1\r\n\r\n", 400),
        ("GET  / HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/1.1 \r\n\r\n", 400),
        ("GET relative HTTP/1.1\r\n\r\n", 400),
        ("GET /\u{7F} HTTP/1.1\r\n\r\n", 400),
        ("GET * HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\n\r\n", 505),
        ("GET / HTTP/1.10\r\n\r\n", 400),
        ("GET / http/1.1\r\n\r\n", 400),
    ])
    func malformedHeadsAreRefused(text: String, status: Int) {
        #expect(throws: HTTPRefusal.self) { try Self.parse(Array(text.utf8)) }
        do {
            _ = try Self.parse(Array(text.utf8), piece: 1)
        } catch {
            #expect(error.status == status, "\(text.debugDescription)")
        }
    }

    @Test func aHeadPastTheLimitIsRefusedWhenTheLimitIsPassedNotAtItsEnd() throws {
        let limits = HTTPLimits()
        var head = Array("GET / HTTP/1.1\r\nHost: a\r\nX-Big: ".utf8)
        head += Array(repeating: UInt8(ascii: "a"), count: limits.maximumHead - head.count)
        // Exactly at the limit and without its end: more is needed.
        #expect(try Self.parse(head, piece: 4096) == .incomplete)
        // One byte more, still without an end: refused now.
        #expect(throws: HTTPRefusal(431, "request head larger than \(limits.maximumHead) bytes")) {
            try Self.parse(head + [UInt8(ascii: "a")], piece: 4096)
        }
        // A whole head: at the limit it is taken, one byte over it is not.
        var whole = Array("GET / HTTP/1.1\r\nHost: a\r\nX: ".utf8)
        whole += Array(repeating: UInt8(ascii: "a"), count: limits.maximumHead - whole.count - 4) + Array("\r\n\r\n".utf8)
        #expect(try Self.parse(whole, piece: 4096) == Self.parse(whole))
        guard case .complete(_, let length) = try Self.parse(whole) else {
            Issue.record("a head of exactly \(limits.maximumHead) bytes was not taken")
            return
        }
        #expect(length == limits.maximumHead)
        #expect(throws: HTTPRefusal(431, "request head larger than \(limits.maximumHead) bytes")) {
            try Self.parse(Array("GET / HTTP/1.1\r\nHost: a\r\nX: a".utf8) + whole.dropFirst(Array("GET / HTTP/1.1\r\nHost: a\r\nX: ".utf8).count))
        }
        let longLine = Array("GET /".utf8) + Array(repeating: UInt8(ascii: "a"), count: limits.maximumRequestLine)
        #expect(throws: HTTPRefusal.self) { try Self.parse(longLine) }
        do {
            _ = try Self.parse(longLine)
        } catch {
            #expect(error.status == 414)
        }
    }

    @Test func moreFieldsThanTheLimitAre431() {
        var limits = HTTPLimits()
        limits.maximumFields = 3
        let text = "GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n"
        #expect(throws: HTTPRefusal(431, "more than 3 header fields")) { try Self.parse(Array(text.utf8), limits: limits) }
    }

    static func head(_ fields: [(String, String)], version: Int = 1) -> HTTPRequestHead {
        HTTPRequestHead(method: "POST", target: "/api/alarms", minorVersion: version, fields: fields.map { .init(name: $0.0, value: $0.1) })
    }

    @Test func bodiesAreFramedStrictly() throws {
        #expect(try Self.head([("host", "a")]).bodyFraming(maximumBody: 100) == .none)
        #expect(try Self.head([("content-length", "0")]).bodyFraming(maximumBody: 100) == .none)
        #expect(try Self.head([("content-length", "100")]).bodyFraming(maximumBody: 100) == .length(100))
        #expect(try Self.head([("transfer-encoding", "Chunked")]).bodyFraming(maximumBody: 100) == .chunked)
        let refused: [([(String, String)], Int, Int)] = [
            ([("content-length", "101")], 1, 413),
            ([("content-length", "536870912")], 1, 413),
            ([("content-length", "99999999999999999999999")], 1, 400),
            ([("content-length", "5, 5")], 1, 400),
            ([("content-length", "+5")], 1, 400),
            ([("content-length", "")], 1, 400),
            ([("content-length", "5"), ("transfer-encoding", "chunked")], 1, 400),
            ([("transfer-encoding", "gzip")], 1, 400),
            ([("transfer-encoding", "chunked, chunked")], 1, 501),
            ([("transfer-encoding", "gzip, chunked")], 1, 501),
            ([("transfer-encoding", "chunked")], 0, 400),
        ]
        for (fields, version, status) in refused {
            #expect(throws: HTTPRefusal.self) { try Self.head(fields, version: version).bodyFraming(maximumBody: 100) }
            do {
                _ = try Self.head(fields, version: version).bodyFraming(maximumBody: 100)
            } catch {
                #expect(error.status == status, "\(fields)")
            }
        }
    }

    @Test func aSingletonFieldTwiceOrNoHostIs400() throws {
        try Self.head([("host", "a"), ("accept", "x"), ("accept", "y")]).checkFields()
        for name in HTTPRequestHead.singletonFields {
            #expect(throws: HTTPRefusal(400, "more than one \(name) field")) {
                try Self.head([("host", "a"), (name, "1"), (name, "1")]).checkFields()
            }
        }
        #expect(throws: HTTPRefusal(400, "no Host field")) { try Self.head([]).checkFields() }
    }

    @Test func anAbsoluteTargetNamesTheHostAndThePath() {
        let head = HTTPRequestHead(method: "GET", target: "http://Clock.local:8080/api/state?x", minorVersion: 1, fields: [.init(name: "host", value: "evil")])
        #expect(head.authority == "Clock.local:8080")
        #expect(head.originFormTarget == "/api/state?x")
        #expect(HTTPRequestHead(method: "GET", target: "http://clock", minorVersion: 1, fields: []).originFormTarget == "/")
        #expect(HTTPRequestHead(method: "GET", target: "/a", minorVersion: 1, fields: [.init(name: "host", value: "h")]).authority == "h")
    }
}

struct ChunkedBodyDecoderTests {
    static func decode(_ text: String, piece: Int = .max, maximumBody: Int = 100) throws(HTTPRefusal) -> (body: String, length: Int)? {
        let bytes = Array(text.utf8)
        var decoder = ChunkedBodyDecoder(maximumBody: maximumBody)
        var end = 0
        repeat {
            end = min(bytes.count, end + piece)
            if case .complete(let length) = try decoder.decode(bytes[..<end]) {
                return (String(decoding: decoder.body, as: UTF8.self), length)
            }
        } while end < bytes.count
        return nil
    }

    @Test func aChunkedBodyIsTheSameHoweverTheReadsSplitIt() throws {
        let text = "5\r\nHello\r\n7;name=value;quoted=\"a \\\" b\" ; x\r\n, world\r\n0\r\nTrailer: yes\r\n\r\nnext request"
        for piece in [1, 2, 3, 7, .max] {
            let decoded = try #require(try Self.decode(text, piece: piece))
            #expect(decoded.body == "Hello, world")
            #expect(text.utf8.count - decoded.length == "next request".utf8.count)
        }
        #expect(try Self.decode("5\r\nHello\r\n0\r\n") == nil)
    }

    @Test(arguments: [
        "zz\r\n", "\r\n", "5 \r\nHello\r\n0\r\n\r\n", "-5\r\n", "5\r\nHelloX\r\n", "5\r\nHello\n0\r\n\r\n", "5\nHello\r\n",
        "5;\r\nHello\r\n0\r\n\r\n", "5;a=\r\nHello\r\n0\r\n\r\n", "5;a=\"open\r\nHello\r\n", "5,x\r\n",
        "0\r\nbad trailer\r\n\r\n", "0\r\n folded: x\r\n\r\n", "5\r\nHello\r\n0\r\n\rX", "0x5\r\n",
    ])
    func malformedChunkedBodiesAre400(text: String) {
        do {
            _ = try Self.decode(text, piece: 1)
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(error.status == 400, "\(text.debugDescription)")
        }
    }

    @Test func aChunkThatWouldPassTheLimitIsRefusedOnItsSizeLine() throws {
        // The size line alone: none of the chunk's data has been sent.
        #expect(throws: HTTPRefusal(413, "request body larger than 100 bytes")) { try Self.decode("65\r\n") }
        #expect(throws: HTTPRefusal(413, "request body larger than 100 bytes")) { try Self.decode("fffffffffffffffffffffffff\r\n") }
        // Many small chunks: refused by the one that passes the limit.
        let fifty = String(repeating: "x", count: 50)
        #expect(try Self.decode("32\r\n\(fifty)\r\n32\r\n\(fifty)\r\n0\r\n\r\n")?.body.count == 100)
        #expect(throws: HTTPRefusal(413, "request body larger than 100 bytes")) {
            try Self.decode("32\r\n\(fifty)\r\n32\r\n\(fifty)\r\n1\r\n")
        }
    }
}

struct ClockHostNamesTests {
    static let local = (address: "192.168.1.20", port: UInt16(8080))

    @Test func theClocksOwnNamesAndAddressesAreAllowed() throws {
        let names = try ClockHostNames(configured: [], hostname: "Bedside")
        for host in [
            "bedside:8080", "BEDSIDE", "bedside.local:8080", "bedside.local.", "localhost:8080", "127.0.0.1:8080", "[::1]:8080",
            "192.168.1.20:8080", "192.168.1.20", "[::ffff:192.168.1.20]:8080", "bedside:",
        ] {
            #expect(names.allows(host, local: Self.local), "\(host)")
        }
    }

    @Test func otherNamesPortsAndMalformedHostsAreRefused() throws {
        let names = try ClockHostNames(configured: [], hostname: "bedside")
        for host in [
            "evil.example", "evil.example:8080", "bedside.evil.example", "bedside:8081", "192.168.1.21:8080", "[::2]:8080",
            "bedside:0", "bedside:99999", "bed side", "bedside@evil", "", "[::1", "::1", "bedside:80:80", "bédside",
        ] {
            #expect(!names.allows(host, local: Self.local), "\(host)")
        }
    }

    @Test func namesTheOwnerAddsAreAllowedWithTheirPort() throws {
        let names = try ClockHostNames(configured: ["clock.example.org", "proxy.lan:8443"], hostname: nil)
        #expect(names.allows("clock.example.org", local: Self.local))
        #expect(names.allows("Clock.Example.org:443", local: Self.local))
        #expect(names.allows("proxy.lan:8443", local: Self.local))
        #expect(!names.allows("proxy.lan", local: Self.local))
        #expect(!names.allows("proxy.lan:8080", local: Self.local))
        #expect(throws: WebOptionError.self) { try ClockHostNames(configured: ["a b"], hostname: nil) }
        #expect(throws: WebOptionError.self) { try ClockHostNames(configured: ["name:port"], hostname: nil) }
    }
}
