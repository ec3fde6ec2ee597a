import AlarmProtocol
import FoundationEssentials

/// A result that is an array: its answer is written element by element.
protocol EncodableList {
    var count: Int { get }
    /// The JSON of the element at `index`.
    func encodedElement(at index: Int, with encoder: JSONEncoder) throws -> [UInt8]
}

extension Array: EncodableList where Element: Encodable {
    func encodedElement(at index: Int, with encoder: JSONEncoder) throws -> [UInt8] {
        Array<UInt8>(try encoder.encode(self[index]))
    }
}

extension ControlSession {
    /// An answer is handed to the connection in parts of about this size.
    static let answerPartSize = 64 * 1024

    /// Writes the success response to `request` as the socket drains
    /// (``ControlConnection/sendAnswer(_:complete:)``): an array element by element, so that the
    /// daemon holds about a window of it at a time whatever its size; anything else as one line.
    ///
    /// The protocol stays one response line per request, so every version-1 client reads it as
    /// before; paging would have needed a cursor in each list operation and every client
    /// changed, and the lists of clients that do not page would still have needed this.
    func sendAnswer(_ result: any Encodable & Sendable, to request: ControlRequest) async {
        if let list = result as? any EncodableList {
            let encoder = ControlProtocol.makeEncoder()
            await sendList(count: list.count, to: request) { try list.encodedElement(at: $0, with: encoder) }
        } else if let line = Self.successLine(id: request.id, result: result) {
            _ = await connection.sendAnswer(line, complete: true)
        } else {
            send(ControlError(.serviceUnavailable, "the result of \(request.operation) could not be encoded"), to: request)
        }
    }

    /// Writes `{"v":1,"id":…,"ok":true,"result":[…]}` with `count` elements from `element`.
    func sendList(count: Int, to request: ControlRequest, element: (Int) throws -> [UInt8]) async {
        var part = Array(#"{"v":\#(ControlProtocol.version),"id":\#(request.id),"ok":true,"result":["#.utf8)
        var begun = false
        for index in 0..<count {
            let json: [UInt8]
            do {
                json = try element(index)
            } catch {
                guard begun else {
                    return send(ControlError(.serviceUnavailable, "the result of \(request.operation) could not be encoded"), to: request)
                }
                server.logger.warning("Control answer could not be encoded", metadata: [
                    "control.connection": "\(connection.id)", "control.op": "\(request.operation)",
                ])
                return connection.abandonAnswer()
            }
            if index > 0 { part.append(UInt8(ascii: ",")) }
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
