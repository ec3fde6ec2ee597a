internal import CALSAShim

/// ALSA's own error messages, kept off stderr.
///
/// alsa-lib prints every error it meets to stderr unless a handler is installed, and its handler
/// type is variadic, so the handler is C (`Sources/CALSAShim`): it keeps the last message of the
/// calling thread. ALSA reports on the thread of the failing call, so the writer thread that made
/// the call collects the message here and hands it to the output's diagnostics sink.
enum ALSAMessages {
    /// Installs the handler, process-wide, the first time it is read.
    static let routed: Void = {
        _ = alarmd_alsa_route_errors()
    }()

    /// This thread's last ALSA message, cleared; `nil` when ALSA said nothing since the last call.
    static func take() -> String? {
        var buffer = [CChar](repeating: 0, count: 512)
        // SAFETY: the buffer outlives the call and its capacity is passed with it.
        let length = buffer.withUnsafeMutableBufferPointer { alarmd_alsa_take_message($0.baseAddress, $0.count) }
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
