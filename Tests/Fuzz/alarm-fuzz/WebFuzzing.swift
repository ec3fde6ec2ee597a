import AlarmProtocol
import FoundationEssentials

@testable import AlarmWeb

/// The `web` target: an input is what a browser (or anyone on the network) sent alarm-web,
/// read exactly as its connections read it.
///
/// Heads: ``HTTPHeadParser`` fed the input whole and in pieces, with the server's limits and
/// with small ones (which reach 414 and 431 with short inputs); the head's framing, `Host` and
/// target decided as ``HTTPConnection`` decides them; the bytes after a chunked head through
/// ``ChunkedBodyDecoder``. Bodies: the whole input as a chunked body, and as the JSON of each of
/// the page's forms (``AlarmForm``, ``TimerForm``, ``SettingsForm``, a pairing request).
enum WebFuzzing {
    static let hosts = try! ClockHostNames(configured: ["clock.example.org", "proxy.lan:8443"], hostname: "bedside")

    static func run(_ bytes: [UInt8]) {
        var random = FuzzRandom(seed: bytes)
        checkHead(bytes, limits: HTTPLimits(), random: &random)
        var small = HTTPLimits()
        small.maximumRequestLine = random.next(in: 1...64)
        small.maximumHead = random.next(in: 1...256)
        small.maximumFields = random.next(in: 0...4)
        small.maximumBody = random.next(in: 0...64)
        checkHead(bytes, limits: small, random: &random)
        _ = checkChunked(bytes[...], maximumBody: WebApp.maximumBody, random: &random)
        _ = checkChunked(bytes[...], maximumBody: random.next(in: 0...64), random: &random)
        checkForms(bytes)
    }

    // MARK: - Heads

    static func checkHead(_ bytes: [UInt8], limits: HTTPLimits, random: inout FuzzRandom) {
        let whole = parse(bytes, pieces: [bytes[...]], limits: limits)
        let pieces = random.chunks(of: bytes)
        let split = parse(bytes, pieces: pieces, limits: limits)
        fuzzCheck(whole == split, "pieces \(pieces.map(\.count)) gave \(split), whole \(whole)")
        switch whole {
        case .failure(let refusal):
            fuzzCheck([400, 414, 431, 505].contains(refusal.status), "a head refused with \(refusal.status)")
        case .success(.incomplete):
            // One more when the last is a CR, which waits for its LF.
            fuzzCheck(bytes.count <= limits.maximumHead || bytes.count == limits.maximumHead + 1 && bytes.last == .cr,
                      "\(bytes.count) bytes with no end of head were not refused")
        case .success(.complete(let head, let length)):
            fuzzCheck(length <= limits.maximumHead && length <= bytes.count, "a head of \(length) bytes")
            checkHead(head, limits: limits)
            if (try? head.checkFields()) != nil, case .chunked? = try? head.bodyFraming(maximumBody: limits.maximumBody) {
                _ = checkChunked(bytes[length...], maximumBody: limits.maximumBody, random: &random)
            }
        }
    }

    /// What the connection decides from a head it read.
    static func checkHead(_ head: HTTPRequestHead, limits: HTTPLimits) {
        fuzzCheck(!head.method.isEmpty && head.method.utf8.allSatisfy(\.isTokenCharacter), "method \(head.method.debugDescription)")
        fuzzCheck(head.target.utf8.allSatisfy { (0x21...0x7E).contains($0) }, "target \(head.target.debugDescription)")
        fuzzCheck(head.fields.count <= limits.maximumFields, "\(head.fields.count) fields")
        for field in head.fields {
            fuzzCheck(!field.name.isEmpty && field.name.utf8.allSatisfy(\.isTokenCharacter) && field.name == field.name.lowercased(),
                      "field name \(field.name.debugDescription)")
            fuzzCheck(field.value.unicodeScalars.allSatisfy { $0 == "\t" || $0.value >= 0x20 && $0.value != 0x7F && $0.value <= 0xFF },
                      "field value \(field.value.debugDescription)")
            fuzzCheck(field.value.first != " " && field.value.last != " ", "field value with whitespace around it")
        }
        fuzzCheck(head.originFormTarget.hasPrefix("/") || head.target == "*", "origin-form target \(head.originFormTarget.debugDescription)")
        do {
            try head.checkFields()
            let authority = head.authority
            fuzzCheck(authority != nil, "a head that passed checkFields has no authority")
            _ = hosts.allows(authority ?? "", local: ("192.168.1.20", 8080))
            _ = hosts.allows(authority ?? "", local: ("::ffff:10.0.0.1", 80))
        } catch {
            fuzzCheck(error.status == 400, "checkFields refused with \(error.status)")
        }
        do {
            switch try head.bodyFraming(maximumBody: limits.maximumBody) {
            case .length(let count): fuzzCheck(count > 0 && count <= limits.maximumBody, "a body of \(count) bytes framed")
            case .chunked: fuzzCheck(head.minorVersion == 1 && head.value("content-length") == nil, "chunked framing with a length")
            case .none: break
            }
        } catch {
            fuzzCheck([400, 413, 501].contains(error.status), "framing refused with \(error.status)")
        }
        do {
            _ = try head.expectsContinue()
        } catch {
            fuzzCheck(error.status == 417, "an expectation refused with \(error.status)")
        }
    }

    /// The parser's result for `bytes` fed as `pieces`, each a prefix's end as reads deliver it.
    static func parse(_ bytes: [UInt8], pieces: [ArraySlice<UInt8>], limits: HTTPLimits) -> Result<HTTPHeadParser.Progress, HTTPRefusal> {
        var parser = HTTPHeadParser(limits: limits)
        do throws(HTTPRefusal) {
            for piece in pieces {
                let progress = try parser.parse(bytes[..<piece.endIndex])
                if progress != .incomplete { return .success(progress) }
            }
            return .success(.incomplete)
        } catch {
            return .failure(error)
        }
    }

    // MARK: - Chunked bodies

    /// The decoder's outcome for `bytes`, the same whole and in pieces, within its limit.
    static func checkChunked(_ bytes: ArraySlice<UInt8>, maximumBody: Int, random: inout FuzzRandom) -> Result<[UInt8]?, HTTPRefusal> {
        let whole = decode(bytes, pieces: [bytes.count], maximumBody: maximumBody)
        let sizes = random.chunks(of: Array(bytes)).map(\.count)
        let split = decode(bytes, pieces: sizes, maximumBody: maximumBody)
        fuzzCheck(whole == split, "chunked pieces \(sizes) gave \(split), whole \(whole)")
        switch whole {
        case .success(let body?): fuzzCheck(body.count <= maximumBody, "a chunked body of \(body.count) bytes over \(maximumBody)")
        case .failure(let refusal): fuzzCheck([400, 413, 431].contains(refusal.status), "a chunked body refused with \(refusal.status)")
        case .success(nil): break
        }
        return whole
    }

    static func decode(_ bytes: ArraySlice<UInt8>, pieces: [Int], maximumBody: Int) -> Result<[UInt8]?, HTTPRefusal> {
        var decoder = ChunkedBodyDecoder(maximumBody: maximumBody)
        var end = bytes.startIndex
        do throws(HTTPRefusal) {
            for size in pieces {
                end += size
                if case .complete(let length) = try decoder.decode(bytes[..<end]) {
                    fuzzCheck(length <= end - bytes.startIndex, "a chunked body of \(length) bytes in \(end - bytes.startIndex)")
                    return .success(decoder.body)
                }
            }
            return .success(nil)
        } catch {
            return .failure(error)
        }
    }

    // MARK: - JSON bodies

    /// The input as the body of each of the page's forms: accepted only if strict JSON, and then
    /// a definition that validates.
    static func checkForms(_ bytes: [UInt8]) {
        let body = Data(bytes)
        let isStrict = StrictJSON.validate(bytes) == nil
        if let form = try? AlarmForm.decode(body) {
            fuzzCheck(isStrict, "an alarm form that is not strict JSON was accepted")
            if let definition = try? form.alarm() {
                fuzzCheck((try? definition.validate()) != nil, "an alarm form made a definition that does not validate")
            }
        }
        if let form = try? TimerForm.decode(body) {
            fuzzCheck(isStrict, "a timer form that is not strict JSON was accepted")
            if let definition = try? form.timer() {
                fuzzCheck((try? definition.validate()) != nil, "a timer form made a definition that does not validate")
            }
        }
        if (try? SettingsForm.decode(body)) != nil {
            fuzzCheck(isStrict, "a settings form that is not strict JSON was accepted")
        }
        if (try? WebJSON.decode([String: String].self, from: body)) != nil {
            fuzzCheck(isStrict, "a pairing request that is not strict JSON was accepted")
        }
    }
}
