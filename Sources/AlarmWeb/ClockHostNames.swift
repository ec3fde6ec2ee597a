import Glibc
import LinuxSupport

/// The names a request's `Host` may give: the clock's own. A page on another site that has
/// pointed its own name at the clock's address (DNS rebinding) sends its own name as `Host`, and
/// is refused before any other work.
///
/// Allowed: the machine's host name and its first label with `.local` (mDNS), `localhost`, `127.0.0.1`, `[::1]`
/// and the address the connection reached (written as an address, IPv6 in brackets), each with no
/// port or the port the connection reached; and each name the owner adds (`--host NAME` for any
/// port, `--host NAME:PORT` for one), for a proxy in front or a name in the household's DNS.
/// Names are compared without case and without one trailing dot.
public struct ClockHostNames: Sendable {
    private struct Configured: Sendable {
        var name: String
        var port: UInt16?
    }

    private let configured: [Configured]
    private let own: Set<String>

    /// `configured` as `--host` takes them; `hostname` is the machine's (`gethostname`).
    /// - Throws: ``WebOptionError`` naming a value that is not `NAME` or `NAME:PORT`.
    public init(configured: [String], hostname: String? = machineHostName()) throws {
        self.configured = try configured.map { text in
            guard let host = HostValue(text), !host.name.isEmpty else {
                throw WebOptionError(description: "invalid --host \"\(text)\": expected NAME or NAME:PORT")
            }
            return Configured(name: host.name, port: host.port)
        }
        var own: Set<String> = ["localhost", "127.0.0.1", "::1"]
        if let hostname = hostname?.lowercased(), !hostname.isEmpty, HostValue(hostname) != nil {
            own.insert(hostname)
            own.insert(String(hostname.prefix { $0 != "." }) + ".local")
        }
        self.own = own
    }

    /// Whether `host`, a request's `Host` (or absolute-form authority), names the clock as reached
    /// through a connection to `local` (its local address and port).
    func allows(_ host: String, local: (address: String, port: UInt16)?) -> Bool {
        guard let value = HostValue(host) else { return false }
        if configured.contains(where: { $0.name == value.name && ($0.port == nil || $0.port == value.port) }) {
            return true
        }
        guard value.port == nil || value.port == local?.port else { return false }
        if own.contains(value.name) { return true }
        guard let local, let reached = Self.addressBytes(local.address), let named = Self.addressBytes(value.name) else {
            return false
        }
        return reached == named
    }

    /// An address's bytes (IPv4-mapped IPv6 as IPv4), so that two spellings of one address match.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        let mapped: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
        return bytes.starts(with: mapped) ? Array(bytes[12...]) : bytes
    }
}

/// `Host`'s value split (RFC 9110 7.2): a name or address, lower case (an IPv6 address without
/// its brackets), and the port if one is given.
struct HostValue: Equatable {
    var name: String
    var port: UInt16?

    init?(_ text: String) {
        var rest = Substring(text.lowercased())
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            name = String(rest[rest.index(after: rest.startIndex)..<close])
            guard ClockHostNames.addressBytes(name) != nil else { return nil }
            rest = rest[rest.index(after: close)...]
        } else {
            let end = rest.firstIndex(of: ":") ?? rest.endIndex
            var host = rest[..<end]
            if host.hasSuffix(".") { host = host.dropLast() }
            // reg-name as DNS and mDNS names are written (no percent-encoding): letters,
            // digits, hyphens, underscores and dots.
            guard !host.isEmpty, host.utf8.allSatisfy({ $0.isDigit || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") })
            else { return nil }
            name = String(host)
            rest = rest[end...]
        }
        guard !rest.isEmpty else {
            port = nil
            return
        }
        guard rest.first == ":" else { return nil }
        let digits = rest.dropFirst()
        if digits.isEmpty {
            port = nil  // RFC 3986 3.2.3: an empty port is no port
            return
        }
        guard digits.count <= 5, digits.utf8.allSatisfy(\.isDigit), let number = UInt16(digits), number > 0 else { return nil }
        port = number
    }
}

/// A command-line value that cannot be used; its description says which and why.
public struct WebOptionError: Error, CustomStringConvertible {
    public var description: String
}
