extension ConnectivityCheck {
    /// The HTTP proxy a check's requests go through, chosen per endpoint as curl chooses it.
    ///
    /// By default a check honours the process's environment (``environment``), as curl and
    /// Foundation's `URLSession` on Linux do: an `http://` endpoint goes through `http_proxy`
    /// (lower case only: an upper-case `HTTP_PROXY` may come from a CGI request's `Proxy:`
    /// header), else `all_proxy`/`ALL_PROXY`, unless `no_proxy`/`NO_PROXY` names its host;
    /// an `https://` endpoint goes through `https_proxy`/`HTTPS_PROXY`, else `all_proxy`, in a
    /// `CONNECT` tunnel with the TLS inside it. A proxy's name is resolved with
    /// the check's own resolver; the request is sent to it in absolute form, with
    /// `Proxy-Authorization: Basic` only when its URL holds `user:password@`. The result's
    /// ``ConnectivityResult/proxy`` names the proxy the verdict's endpoint went through.
    ///
    /// ```swift
    /// var check = ConnectivityCheck.default
    /// check.proxy = .none                                       // always direct
    /// check.proxy = try .init(http: "http://proxy.corp:3128", noProxy: "localhost,.corp")
    /// ```
    ///
    /// A proxy's own failure is its verdict, as curl would see it: a proxy that refuses or
    /// drops the connection, or that answers 502, 503 or 504 (it cannot reach the endpoint)
    /// or 407 (it wants credentials), makes the result `limited`, with a
    /// ``ConnectivityFailure/Kind-swift.enum/proxyFailed`` failure naming the proxy; a proxy
    /// whose name does not resolve, `local`. `http://` proxies (a scheme-less value is one,
    /// on port 1080 when none is given, as curl has it) and SOCKS5 proxies (`socks5://`,
    /// `socks5h://`, RFC 1928, with RFC 1929's username and password from the URL; the proxy
    /// resolves the endpoint's name in both forms) are used; a SOCKS4 or HTTPS proxy in the
    /// environment fails its endpoints the same way, naming it. The check is never
    /// sent around a configured proxy: a network that needs one answers through it.
    /// (On Apple platforms the check's connections follow the system; this setting is
    /// honoured on Linux.)
    public struct Proxy: Hashable, Sendable, CustomStringConvertible {
        package enum Source: Hashable, Sendable {
            case none
            case environment
            case rules(ProxyRules)
        }

        package let source: Source

        package init(source: Source) {
            self.source = source
        }

        /// No proxy: every endpoint is reached directly.
        public static let none = Proxy(source: .none)

        /// The proxies the process's environment names (`http_proxy`, `https_proxy`,
        /// `all_proxy`, `no_proxy` and their upper-case forms but `HTTP_PROXY`), read once,
        /// when a check first needs them. The default.
        public static let environment = Proxy(source: .environment)

        /// Proxies given by the app.
        ///
        /// - Parameters:
        ///   - http: The proxy for `http://` endpoints, as `http://[user:password@]host[:port]`
        ///     (the scheme may be left out; port 1080 when none is given, as curl has it), or
        ///     `socks5://…` / `socks5h://…`.
        ///   - https: The proxy for `https://` endpoints.
        ///   - all: The proxy for endpoints whose scheme has none of its own.
        ///   - noProxy: Hosts reached directly, as in `no_proxy`: comma-separated names
        ///     (each matching itself and its subdomains; a leading dot is ignored), IP
        ///     addresses or CIDR networks (`10.0.0.0/8`), or `*` for every host.
        /// - Throws: ``NetPathError`` (`invalidInput`) naming a proxy that is not an
        ///   `http://`, `socks5://` or `socks5h://` URL.
        public init(http: String? = nil, https: String? = nil, all: String? = nil, noProxy: String? = nil) throws {
            func server(_ text: String?, _ name: String) throws -> ProxyServer? {
                guard let text, !text.isEmpty else { return nil }
                let parsed = ProxyServer.parse(text, variable: name)
                if let reason = parsed.unusable { throw NetPathError(.invalidInput, "invalid \(name) proxy '\(parsed.url)': \(reason)") }
                return parsed
            }
            let rules = ProxyRules(http: try server(http, "http"), https: try server(https, "https"), all: try server(all, "all"),
                                   noProxy: NoProxyList(noProxy ?? ""))
            source = rules.http == nil && rules.https == nil && rules.all == nil ? .none : .rules(rules)
        }

        /// The proxies `environment` names, by curl's rules: `http_proxy` (never
        /// `HTTP_PROXY`), `https_proxy` or `HTTPS_PROXY`, `all_proxy` or `ALL_PROXY`, and
        /// `no_proxy` or `NO_PROXY` (the lower-case form first; an empty value is none). A
        /// value that is no usable proxy is kept: the endpoints that would use it fail,
        /// naming it, as curl's request would.
        ///
        /// - Parameter environment: Variables and their values, such as
        ///   `ProcessInfo.processInfo.environment`.
        public init(environment: [String: String]) {
            func value(_ names: String...) -> (String, String)? {
                for name in names { if let text = environment[name], !text.isEmpty { return (name, text) } }
                return nil
            }
            let http = value("http_proxy").map { ProxyServer.parse($0.1, variable: $0.0) }
            let https = value("https_proxy", "HTTPS_PROXY").map { ProxyServer.parse($0.1, variable: $0.0) }
            let all = value("all_proxy", "ALL_PROXY").map { ProxyServer.parse($0.1, variable: $0.0) }
            let noProxy = NoProxyList(value("no_proxy", "NO_PROXY")?.1 ?? "")
            source = http == nil && https == nil && all == nil ? .none : .rules(ProxyRules(http: http, https: https, all: all, noProxy: noProxy))
        }

        /// The proxy for an endpoint, `nil` for a direct connection; an unresolved
        /// ``environment`` is direct (the pure core reads no environment).
        package func server(for target: HTTPTarget, scheme: String = "http") -> ProxyServer? {
            guard case .rules(let rules) = source else { return nil }
            return rules.server(scheme: scheme, host: target.host, address: target.address)
        }

        public var description: String {
            switch source {
            case .none: "none"
            case .environment: "environment"
            case .rules(let rules):
                ([("http", rules.http), ("https", rules.https), ("all", rules.all)] as [(String, ProxyServer?)])
                    .compactMap { name, server in server.map { "\(name): \($0.url)" } }.joined(separator: ", ")
                    + (rules.noProxy.isEmpty ? "" : "; no proxy for \(rules.noProxy)")
            }
        }
    }
}

/// The proxies of each scheme and the hosts reached directly.
package struct ProxyRules: Hashable, Sendable {
    package var http: ProxyServer?
    package var https: ProxyServer?
    package var all: ProxyServer?
    package var noProxy: NoProxyList

    /// curl's choice: none when `no_proxy` matches the host, else the scheme's own proxy,
    /// else `all_proxy`'s.
    package func server(scheme: String, host: String, address: IPAddress?) -> ProxyServer? {
        if noProxy.matches(host: host, address: address) { return nil }
        return (scheme == "https" ? https : http) ?? all
    }
}

/// One proxy: where it is, the credentials its URL holds, or why it cannot be used.
package struct ProxyServer: Hashable, Sendable {
    /// The proxy as shown: `http://host:port` (or `socks5h://host:port`), never with its
    /// credentials.
    package var url: String
    /// The environment variable (or the ``ConnectivityCheck/Proxy`` parameter) it came from.
    package var variable: String
    package var host: String
    package var address: IPAddress?
    package var port: UInt16
    /// `user:password`, percent-decoded, when the URL holds them.
    package var credentials: String?
    /// Why it cannot be used (a SOCKS4 or HTTPS proxy, a malformed URL); `nil` when it can.
    package var unusable: String?
    /// A SOCKS5 proxy (RFC 1928: `socks5://` or `socks5h://`), which is asked for a
    /// connection to the endpoint's host (by name, or its address when the URL holds one);
    /// else an HTTP proxy.
    package var isSOCKS = false

    /// The port of a proxy URL that names none: curl's (`CURL_DEFAULT_PROXY_PORT`).
    package static let defaultPort: UInt16 = 1080

    /// Parses a proxy URL as curl does: a scheme-less value is `http://`; the path is
    /// ignored; `user:password@` is percent-decoded. Never throws: a value that cannot be
    /// used is returned with ``unusable`` saying why.
    package static func parse(_ text: String, variable: String) -> ProxyServer {
        // What is shown never holds the credentials.
        let shown = text.lastIndex(of: "@").map { index -> String in
            let scheme = text.firstRange(of: "://").map { String(text[..<$0.upperBound]) } ?? ""
            return scheme + String(text[text.index(after: index)...])
        } ?? text
        func unusable(_ reason: String) -> ProxyServer {
            ProxyServer(url: String(shown.prefix(256)), variable: variable, host: "", address: nil, port: 0, credentials: nil, unusable: reason)
        }
        var scheme = "http"
        guard text.utf8.count <= 2048 else { return unusable("longer than 2048 bytes") }
        guard !text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return unusable("it contains spaces or control characters") }
        var rest = Substring(text)
        if let separator = text.firstRange(of: "://") {
            switch text[..<separator.lowerBound].lowercased() {
            case "http": break
            case "socks5": scheme = "socks5"
            case "socks5h": scheme = "socks5h"
            case "https": return unusable("HTTPS proxies are not supported (only http://, socks5:// and socks5h://)")
            case "socks4", "socks4a": return unusable("SOCKS4 proxies are not supported (only http://, socks5:// and socks5h://)")
            case let other: return unusable("unsupported proxy scheme '\(other)' (only http://, socks5:// and socks5h://)")
            }
            rest = text[separator.upperBound...]
        }
        let authority = rest[..<(rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex)]
        var hostPort = authority
        var credentials: String?
        if let at = authority.lastIndex(of: "@") {
            let userinfo = authority[..<at]
            let (user, password) = userinfo.firstIndex(of: ":").map { (userinfo[..<$0], userinfo[userinfo.index(after: $0)...]) } ?? (userinfo, "")
            guard let user = percentDecoded(user), let password = percentDecoded(password) else {
                return unusable("its credentials are not valid percent-encoding")
            }
            credentials = user + ":" + password
            hostPort = authority[authority.index(after: at)...]
        }
        switch HTTPTarget.hostAndPort(hostPort, defaultPort: defaultPort, invalid: { NetPathError(.invalidInput, $0) }) {
        case .success(let (host, address, port)):
            let bracketed = address?.family == IPAddress.inet6 ? "[\(host)]" : host
            return ProxyServer(url: "\(scheme)://\(bracketed):\(port)", variable: variable, host: host, address: address, port: port,
                               credentials: credentials, unusable: nil, isSOCKS: scheme != "http")
        case .failure(let error):
            return unusable(error.message)
        }
    }

    /// `%XX` decoded as UTF-8; `nil` for a stray `%` or bytes that are not UTF-8.
    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        // Decoding repairs invalid UTF-8, so a repaired text does not give the bytes back
        // (`String(validating:)` would need iOS 18).
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// How a message names it: `the proxy http://host:3128 (http_proxy)`.
    package var named: String { "the proxy \(url) (\(variable))" }
}

/// `no_proxy`, as curl reads it (`Curl_check_noproxy`): `*` alone for every host, else
/// entries separated by commas (and blanks), each a host name that matches itself and any
/// name ending in `.` and it (a leading or trailing dot ignored, case ignored), or an IP
/// address or CIDR network that matches a host given as an address.
package struct NoProxyList: Hashable, Sendable, CustomStringConvertible {
    package var everything = false
    package var names: [String] = []
    package var networks: [Network] = []

    package struct Network: Hashable, Sendable {
        package var address: IPAddress
        package var prefixLength: UInt8
    }

    package var isEmpty: Bool { !everything && names.isEmpty && networks.isEmpty }

    package init(_ text: String) {
        let blanks: Set<Character> = [" ", "\t"]
        if String(text.drop { blanks.contains($0) }.reversed().drop { blanks.contains($0) }.reversed()) == "*" {
            everything = true
            return
        }
        for token in text.split(whereSeparator: { $0 == "," || blanks.contains($0) }) {
            let slash = token.firstIndex(of: "/") ?? token.endIndex
            if let address = IPAddress(String(token[..<slash])) {
                let maximum: UInt8 = address.family == IPAddress.inet ? 32 : 128
                // curl: no bits (or 0) is the whole address; more bits than it has match nothing.
                let bits = slash == token.endIndex ? 0 : Int(token[token.index(after: slash)...]) ?? -1
                if bits >= 0 && bits <= Int(maximum) {
                    networks.append(Network(address: address, prefixLength: bits == 0 ? maximum : UInt8(bits)))
                }
                continue
            }
            var name = Substring(token.lowercased())
            if name.hasSuffix(".") { name = name.dropLast() }
            if name.hasPrefix(".") { name = name.dropFirst() }
            if !name.isEmpty { names.append(String(name)) }
        }
    }

    /// Whether the host (lower-cased; `address` when it is one) is reached directly.
    package func matches(host: String, address: IPAddress?) -> Bool {
        if everything { return true }
        if let address {
            return networks.contains { $0.address.contains(address, prefixLength: $0.prefixLength) }
        }
        let name = host.hasSuffix(".") ? Substring(host.dropLast()) : Substring(host)
        return names.contains { pattern in
            name == pattern || (name.count > pattern.count && name.hasSuffix("." + pattern))
        }
    }

    package var description: String {
        everything ? "*" : (names + networks.map { "\($0.address)/\($0.prefixLength)" }).joined(separator: ",")
    }
}

/// Base64 with padding (RFC 4648 §4), for `Proxy-Authorization: Basic`.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    package static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            let chunk = UInt32(bytes[index]) << 16 | (count > 1 ? UInt32(bytes[index + 1]) << 8 : 0) | (count > 2 ? UInt32(bytes[index + 2]) : 0)
            for position in 0..<4 {
                output.append(position <= count ? alphabet[Int(chunk >> (18 - 6 * UInt32(position)) & 0x3F)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}
