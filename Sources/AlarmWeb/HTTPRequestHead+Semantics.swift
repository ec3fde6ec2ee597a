/// How a request's body is delimited, decided from its head before any of it is read.
enum HTTPBodyFraming: Equatable {
    case none
    case length(Int)
    case chunked
}

/// What the connection layer decides from a head alone, refusing before any other work.
extension HTTPRequestHead {
    /// Fields a request has at most once: a second one is 400 (RFC 9110 5.3, RFC 6265 5.4),
    /// since servers, proxies and browsers disagree on which of two counts.
    static let singletonFields = ["host", "content-length", "transfer-encoding", "content-type", "origin", "cookie", "expect"]

    /// Refuses a head that repeats a singleton field or lacks `Host` (RFC 9112 3.2).
    func checkFields() throws(HTTPRefusal) {
        for name in Self.singletonFields where values(name).count > 1 {
            throw HTTPRefusal(400, "more than one \(name) field")
        }
        guard value("host") != nil else { throw HTTPRefusal(400, "no Host field") }
    }

    /// The body's framing (RFC 9112 6): `Transfer-Encoding: chunked`, or `Content-Length` digits,
    /// never both; a transfer coding other than chunked is 501, a length past `maximumBody`
    /// 413, anything else unclear 400.
    func bodyFraming(maximumBody: Int) throws(HTTPRefusal) -> HTTPBodyFraming {
        let length = value("content-length")
        if let encoding = value("transfer-encoding") {
            guard length == nil else { throw HTTPRefusal(400, "both Content-Length and Transfer-Encoding") }
            guard minorVersion == 1 else { throw HTTPRefusal(400, "Transfer-Encoding in an HTTP/1.0 request") }
            let codings = encoding.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingASCIIWhitespace().lowercased() }
            guard codings.last == "chunked" else { throw HTTPRefusal(400, "a Transfer-Encoding that does not end in chunked") }
            guard codings.count == 1 else { throw HTTPRefusal(501, "transfer codings other than chunked are not supported") }
            return .chunked
        }
        guard let length else { return .none }
        guard !length.isEmpty, length.utf8.count <= 18, length.utf8.allSatisfy(\.isDigit), let count = Int(length) else {
            throw HTTPRefusal(400, "a Content-Length that is not one decimal number")
        }
        guard count <= maximumBody else { throw HTTPRefusal(413, "request body larger than \(maximumBody) bytes") }
        return count == 0 ? .none : .length(count)
    }

    /// Whether the client waits for `100 Continue` before its body; an expectation other than
    /// that one is 417 (RFC 9110 10.1.1).
    func expectsContinue() throws(HTTPRefusal) -> Bool {
        guard let expectation = value("expect") else { return false }
        guard expectation.lowercased() == "100-continue" else { throw HTTPRefusal(417, "only Expect: 100-continue is understood") }
        return minorVersion == 1
    }

    /// Whether the connection may carry another request after this one: HTTP/1.1 without
    /// `Connection: close`. HTTP/1.0 connections are closed after one request.
    var keepsAlive: Bool {
        minorVersion == 1 && !listContains("connection", token: "close")
    }

    /// The host the request names: the absolute-form target's authority, else `Host`
    /// (RFC 9112 3.2.2).
    var authority: String? {
        guard let scheme = target.firstRange(of: "://"), !target.hasPrefix("/") else { return value("host") }
        let rest = target[scheme.upperBound...]
        return String(rest.prefix { $0 != "/" && $0 != "?" })
    }

    /// The path and query as the routes see them: origin form, whatever form was sent.
    var originFormTarget: String {
        guard let scheme = target.firstRange(of: "://"), !target.hasPrefix("/") else { return target }
        let rest = target[scheme.upperBound...]
        guard let path = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let tail = String(rest[path...])
        return tail.hasPrefix("/") ? tail : "/" + tail
    }
}
