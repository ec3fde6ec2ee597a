import LinuxSupport

/// How alarmctl names users and reads the ones it is given.
extension UserNames {
    /// The uid of `text`: a user name, else a number.
    static func uid(of text: String) throws -> UInt32 {
        if let uid = uid(named: text) { return uid }
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let uid = UInt32(text) { return uid }
        throw CommandFailure.usage("unknown user \"\(text)\": expected a user name or a uid")
    }

    /// `alice (uid 1000)`, or `uid 1000` for a uid without a name.
    static func describe(_ uid: UInt32) -> String {
        name(of: uid).map { "\($0) (uid \(uid))" } ?? "uid \(uid)"
    }

    /// The user's name, or the uid as text.
    static func short(_ uid: UInt32) -> String {
        name(of: uid) ?? String(uid)
    }
}
