/// The client's side of a SOCKS5 negotiation (RFC 1928, with RFC 1929's username and
/// password): the messages the check sends a `socks5://` or `socks5h://` proxy and the
/// reading of its answers. Pure and bounds-checked: a proxy's bytes give a value or a
/// reason, never a trap.
package enum SOCKS5 {
    /// The greeting: version 5 and the methods offered — none, and username/password when
    /// the proxy's URL holds credentials (as curl offers them).
    package static func greeting(credentials: String?) -> [UInt8] {
        credentials == nil ? [5, 1, 0] : [5, 2, 0, 2]
    }

    /// RFC 1929's request: version 1, then the user and the password, each at most 255
    /// bytes; `nil` when one is longer.
    package static func authentication(_ credentials: String) -> [UInt8]? {
        let (user, password) = credentials.firstIndex(of: ":").map {
            (Array(credentials[..<$0].utf8), Array(credentials[credentials.index(after: $0)...].utf8))
        } ?? (Array(credentials.utf8), [])
        guard user.count <= 255, password.count <= 255 else { return nil }
        return [1, UInt8(user.count)] + user + [UInt8(password.count)] + password
    }

    /// `CONNECT` to the endpoint: its address when the URL holds one, else its name, which
    /// the proxy resolves (`nil` for a name over 255 bytes: a URL's host never is).
    package static func connect(to target: HTTPTarget) -> [UInt8]? {
        var bytes: [UInt8] = [5, 1, 0]
        if let address = target.address {
            bytes += address.family == IPAddress.inet ? [1] : [4]
            bytes += address.bytes
        } else {
            let name = Array(target.host.utf8)
            guard !name.isEmpty, name.count <= 255 else { return nil }
            bytes += [3, UInt8(name.count)] + name
        }
        return bytes + [UInt8(target.port >> 8), UInt8(target.port & 0xFF)]
    }

    /// What a proxy's answer so far says.
    package enum Answer: Equatable {
        /// Not all of it yet.
        case needMore
        /// The whole answer, which is `value` (the method chosen, the status given).
        case complete(UInt8)
        /// Not a SOCKS5 answer, or more than one.
        case invalid(String)
    }

    /// The answer to the greeting (`version` 5, `method`) or to the authentication
    /// (`status` after a version byte that is not checked, `version` nil: some servers send
    /// 5 there, and curl ignores it too): two bytes.
    package static func twoByteAnswer(_ bytes: [UInt8], version: UInt8?) -> Answer {
        guard bytes.count >= 2 else {
            return bytes.first.map { version == nil || $0 == version ? .needMore : .invalid("not a SOCKS5 answer") } ?? .needMore
        }
        guard version == nil || bytes[0] == version else { return .invalid("not a SOCKS5 answer") }
        return bytes.count == 2 ? .complete(bytes[1]) : .invalid("more bytes than its answer")
    }

    /// The answer to `CONNECT`: version 5, the reply code, a reserved byte, the bound
    /// address (IPv4, a name, or IPv6) and port. `complete` carries the reply code.
    package static func connectAnswer(_ bytes: [UInt8]) -> Answer {
        guard let version = bytes.first else { return .needMore }
        guard version == 5 else { return .invalid("not a SOCKS5 answer") }
        // A failure is known from its code: the rest may be cut or odd.
        if bytes.count >= 2, bytes[1] != 0 { return .complete(bytes[1]) }
        guard bytes.count >= 5 else { return .needMore }
        let addressLength: Int
        switch bytes[3] {
        case 1: addressLength = 4
        case 3: addressLength = 1 + Int(bytes[4])
        case 4: addressLength = 16
        default: return .invalid("an answer with address type \(bytes[3])")
        }
        let total = 4 + addressLength + 2
        if bytes.count < total { return .needMore }
        return bytes.count == total ? .complete(bytes[1]) : .invalid("more bytes than its answer")
    }

    /// A reply code's meaning (RFC 1928 §6).
    package static func reason(_ code: UInt8) -> String {
        switch code {
        case 1: "general SOCKS server failure"
        case 2: "connection not allowed by ruleset"
        case 3: "network unreachable"
        case 4: "host unreachable"
        case 5: "connection refused"
        case 6: "TTL expired"
        case 7: "command not supported"
        case 8: "address type not supported"
        default: "reply code \(code)"
        }
    }
}
