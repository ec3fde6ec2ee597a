import AlarmProtocol
import FoundationEssentials

/// A result that is an array: its answer is written a few elements at a time.
protocol EncodableList {
    var count: Int { get }
    /// The JSON of the elements in `range`, separated by commas (an array without its brackets).
    func encodedElements(in range: Range<Int>, with encoder: JSONEncoder) throws -> ArraySlice<UInt8>
}

extension Array: EncodableList where Element: Encodable {
    func encodedElements(in range: Range<Int>, with encoder: JSONEncoder) throws -> ArraySlice<UInt8> {
        let array = Array<UInt8>(try encoder.encode(Array(self[range])))
        // `[` and `]`: JSONEncoder writes an array with no space around its elements.
        return array.dropFirst().dropLast()
    }
}

extension ControlSession {
    /// An answer is handed to the connection in parts of about this size: the window, so that an
    /// answer that fits it wakes the I/O thread once, as a single line does.
    static let answerPartSize = ControlConnection.answerWindow
    /// Elements encoded in one call: `JSONEncoder` costs about 10 µs a call beyond its work, a
    /// tenth of a list of 1,000 records encoded one by one; a record is at most a request's 64 KiB.
    static let elementsPerEncoding = 16

    /// Writes the success response to `request` as the socket drains
    /// (``ControlConnection/sendAnswer(_:complete:)``): an array a few elements at a time, so
    /// that the daemon holds about a window of it at a time whatever its size; anything else as
    /// one line.
    ///
    /// The protocol stays one response line per request, so every version-1 client reads it as
    /// before; paging would have needed a cursor in each list operation and every client
    /// changed, and the lists of clients that do not page would still have needed this.
    func sendAnswer(_ result: any Encodable & Sendable, to request: ControlRequest) async {
        if let list = result as? any EncodableList {
            await sendList(list, to: request)
        } else if let line = Self.successLine(id: request.id, result: result) {
            _ = await connection.sendAnswer(line, complete: true)
        } else {
            send(ControlError(.serviceUnavailable, "the result of \(request.operation) could not be encoded"), to: request)
        }
    }

    /// Writes `{"v":1,"id":…,"ok":true,"result":…}` around `json`, in one part.
    func sendEncodedResult(_ json: [UInt8], to request: ControlRequest) async {
        var line = Self.successPrefix(request)
        line += json
        line += Array("}\n".utf8)
        _ = await connection.sendAnswer(line, complete: true)
    }

    private static func successPrefix(_ request: ControlRequest) -> [UInt8] {
        Array(#"{"v":\#(ControlProtocol.version),"id":\#(request.id),"ok":true,"result":"#.utf8)
    }

    /// Writes `{"v":1,"id":…,"ok":true,"result":[…]}` with the elements of `list`.
    private func sendList(_ list: any EncodableList, to request: ControlRequest) async {
        let encoder = ControlProtocol.makeEncoder()
        var part = Self.successPrefix(request)
        part.append(UInt8(ascii: "["))
        var begun = false
        for start in stride(from: 0, to: list.count, by: Self.elementsPerEncoding) {
            let json: ArraySlice<UInt8>
            do {
                json = try list.encodedElements(in: start..<min(start + Self.elementsPerEncoding, list.count), with: encoder)
            } catch {
                guard begun else {
                    return send(ControlError(.serviceUnavailable, "the result of \(request.operation) could not be encoded"), to: request)
                }
                server.logger.warning("Control answer could not be encoded", metadata: [
                    "control.connection": "\(connection.id)", "control.op": "\(request.operation)",
                ])
                return connection.abandonAnswer()
            }
            if start > 0 { part.append(UInt8(ascii: ",")) }
            part += json
            if part.count >= Self.answerPartSize {
                begun = true
                guard await connection.sendAnswer(part, complete: false) else { return }
                part.removeAll(keepingCapacity: true)
            }
        }
        part += Array("]}\n".utf8)
        _ = await connection.sendAnswer(part, complete: true)
    }
}
