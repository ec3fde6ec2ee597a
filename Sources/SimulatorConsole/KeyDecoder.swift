/// Turns the bytes typed at a terminal into ``SimulatorKey``s: a pure state machine, fed one read
/// at a time, so an escape sequence split across reads is still swallowed whole.
///
/// Escape sequences (ECMA-48) are ignored whole: CSI (`ESC [` parameters, then a final byte
/// 0x40-0x7E: arrows, function keys), SS3 (`ESC O` and one byte: arrows in application mode), and
/// `ESC` with any other printable byte (Alt+key). Control bytes inside a sequence still count, so
/// Ctrl-C always quits. Unknown bytes, including UTF-8 beyond ASCII, are ignored.
///
/// The Escape key alone sends a lone `ESC`: a reader that sees no more bytes shortly after it
/// calls ``abandonEscapeSequence()`` (as editors do), so the next letter counts.
public struct KeyDecoder: Hashable, Sendable {
    private enum State: Hashable, Sendable {
        case ground
        /// After `ESC`.
        case escape
        /// After `ESC [`, until the final byte.
        case controlSequence
        /// After `ESC O`: one more byte.
        case singleShift
    }

    private static let escapeByte: UInt8 = 0x1B

    private var state = State.ground

    public init() {}

    public var isInsideEscapeSequence: Bool { state != .ground }

    /// The keys in `bytes`, given everything decoded before.
    public mutating func decode(_ bytes: some Sequence<UInt8>) -> [SimulatorKey] {
        var keys: [SimulatorKey] = []
        for byte in bytes {
            if let key = decode(byte) { keys.append(key) }
        }
        return keys
    }

    /// Forgets an unfinished escape sequence: no more bytes came, so it was the Escape key.
    public mutating func abandonEscapeSequence() {
        state = .ground
    }

    private mutating func decode(_ byte: UInt8) -> SimulatorKey? {
        if byte == Self.escapeByte {
            state = .escape  // a new ESC also ends an unfinished sequence
            return nil
        }
        if byte < 0x20 || byte == 0x7F {
            // Control bytes act even inside a sequence (terminals execute them there too).
            if state == .escape || state == .singleShift { state = .ground }
            return SimulatorKey(byte: byte)
        }
        switch state {
        case .ground:
            return SimulatorKey(byte: byte)
        case .escape:
            switch byte {
            case UInt8(ascii: "["): state = .controlSequence
            case UInt8(ascii: "O"): state = .singleShift
            default: state = .ground  // Alt+key, or a stray byte after ESC: swallowed
            }
        case .controlSequence:
            // Parameters and intermediates are 0x20-0x3F; a final byte 0x40-0x7E ends it; a byte
            // beyond ASCII is not part of any sequence and ends it too.
            if byte >= 0x40 { state = .ground }
        case .singleShift:
            state = .ground
        }
        return nil
    }
}
