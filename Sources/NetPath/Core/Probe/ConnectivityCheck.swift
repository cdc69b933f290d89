/// How to check that the Internet really answers (SPEC §3): HTTP endpoints with their
/// expected answers, a time bound, and a response-size bound.
///
/// ```swift
/// let monitor = PathMonitor(configuration: .init(connectivityCheck: .default))   // every path gets `connectivity`
/// let result = await ConnectivityCheck.default.run()       // or one check now
/// ```
public struct ConnectivityCheck: Hashable, Sendable {
    /// What an endpoint must answer for the Internet to count as reachable.
    public struct Expectation: Hashable, Sendable {
        /// The expected HTTP status; `nil` means 204, or 200 with an empty body.
        public var status: Int?
        /// Text the body must start with.
        public var bodyPrefix: String?
        /// A header the response must carry, with this value (names compare without case).
        public var header: Header?

        /// A response header and its value.
        public struct Header: Hashable, Sendable {
            /// The header name, such as `X-NetworkManager-Status`.
            public var name: String
            /// The value, such as `online`.
            public var value: String
            /// Creates a header expectation.
            public init(name: String, value: String) {
                self.name = name
                self.value = value
            }
        }

        /// Creates an expectation; all given parts must hold.
        public init(status: Int? = nil, bodyPrefix: String? = nil, header: Header? = nil) {
            self.status = status
            self.bodyPrefix = bodyPrefix
            self.header = header
        }

        /// Status 204, or status 200 with an empty body (Google's and Android's rule).
        public static let noContent = Expectation()
    }

    /// One check endpoint: an `http://` or `https://` URL and its expectation.
    ///
    /// An `https://` endpoint is checked over TLS 1.2 or later, its certificate verified
    /// against the system's trust store (OpenSSL 3's, loaded when such an endpoint is first
    /// checked; `SSL_CERT_FILE` and `SSL_CERT_DIR` as OpenSSL honours them) and its name. An
    /// interceptor can answer plain HTTP in the endpoint's place but cannot give a
    /// certificate that verifies: one that does not verify makes the check `limited` (or
    /// `portal` when an HTTP endpoint answered as a portal), even while another endpoint
    /// passes, as Android decides. Through a proxy (``ConnectivityCheck/proxy``: `https_proxy`
    /// or `all_proxy`), the TLS goes through a `CONNECT` tunnel, as curl's does.
    public struct Endpoint: Hashable, Sendable {
        /// The URL, as given.
        public let url: String
        /// What it must answer (checked when the endpoint is made).
        public let expectation: Expectation
        package let target: HTTPTarget

        /// Creates an endpoint.
        ///
        /// - Parameters:
        ///   - url: An `http://` or `https://host[:port][/path]` URL; the host may be a name,
        ///     an IPv4 address or a bracketed IPv6 address.
        ///   - expectation: What it must answer (204 or an empty 200 by default).
        /// - Throws: ``NetPathError`` (`invalidInput`) naming the URL and what is wrong.
        public init(_ url: String, expecting expectation: Expectation = .noContent) throws {
            self.url = url
            self.expectation = expectation
            target = try HTTPTarget(url)
            if let status = expectation.status, !(100...599).contains(status) {
                throw NetPathError(.invalidInput, "invalid expected HTTP status \(status) for '\(url)'")
            }
        }

        private init(known url: String, expectation: Expectation) {
            self.url = url
            self.expectation = expectation
            // Only for the constant default URLs: a typo there is a programmer error.
        target = try! HTTPTarget(url)
        }

        package static func known(_ url: String, _ expectation: Expectation) -> Endpoint {
            Endpoint(known: url, expectation: expectation)
        }
    }

    /// The endpoints, all tried at once. One answering as a portal does makes the result
    /// `portal`, even while another passes; else an `https://` one whose certificate does not
    /// verify makes it `limited`; else one passing makes it `full`. A silent or failing
    /// endpoint counts neither way (a pass then waits for it at most a second, or until
    /// ``timeout`` when that is sooner).
    public let endpoints: [Endpoint]
    /// The bound on one check (5 s by default).
    public let timeout: Duration
    /// The bound on name resolution, within ``timeout`` (3 s by default, or ``timeout``
    /// when that is shorter).
    public let resolutionTimeout: Duration
    /// The most bytes read from one response (64 KiB by default).
    public let maximumResponseSize: Int
    /// While the result is `full`, check again after this long; `nil` (the default) sends
    /// nothing while the Internet stays up.
    public let interval: Duration?

    /// Whether a monitor runs this check on an ultra-constrained path (a satellite link:
    /// ``NetworkPath/isUltraConstrained``). `false` by default, as an app on iOS 26 must opt
    /// in with `allowUltraConstrainedPaths`: the path's ``NetworkPath/connectivity`` then
    /// stays `unknown`. (On Apple platforms the check's own connections do not set Apple's
    /// parameter; the system may still keep them off such a path.)
    public let allowsUltraConstrainedPaths: Bool

    /// The HTTP proxy each endpoint's request goes through: ``Proxy-swift.struct/environment``
    /// by default (curl's `http_proxy`, `all_proxy` and `no_proxy`), ``Proxy-swift.struct/none``
    /// for direct connections only, or proxies of the app's.
    public var proxy: Proxy

    /// The longest a check may take: five minutes.
    public static let maximumTimeout: Duration = .seconds(300)
    /// The bounds of ``maximumResponseSize``: 1 KiB to 16 MiB.
    public static let responseSizeRange = 1024...(16 * 1024 * 1024)

    /// Creates a check.
    ///
    /// ```swift
    /// let check = try ConnectivityCheck(
    ///     endpoints: [try .init("http://status.example.com/health", expecting: .init(status: 200, bodyPrefix: "ok"))],
    ///     timeout: .seconds(3)
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - endpoints: The endpoints (at least one); the defaults of several operators when
    ///     omitted.
    ///   - timeout: How long one check may take: more than zero, at most five minutes.
    ///   - resolutionTimeout: How long name resolution may take: more than zero, at most
    ///     `timeout`; `nil` for 3 s or `timeout` when that is shorter.
    ///   - maximumResponseSize: Bytes read from a response at most (1 KiB to 16 MiB).
    ///   - interval: Time between checks while `full` (more than zero), or `nil` for none.
    ///   - allowsUltraConstrainedPaths: Run on ultra-constrained paths too (see
    ///     ``allowsUltraConstrainedPaths``).
    ///   - proxy: The proxy for the requests (see ``proxy``): the environment's by default.
    /// - Throws: ``NetPathError`` with code `.invalidInput` naming the value out of range.
    public init(
        endpoints: [Endpoint] = ConnectivityCheck.defaultEndpoints,
        timeout: Duration = .seconds(5),
        resolutionTimeout: Duration? = nil,
        maximumResponseSize: Int = 64 * 1024,
        interval: Duration? = nil,
        allowsUltraConstrainedPaths: Bool = false,
        proxy: Proxy = .environment
    ) throws {
        func invalid(_ message: String) -> NetPathError { NetPathError(.invalidInput, message) }
        guard !endpoints.isEmpty else { throw invalid("a connectivity check needs at least one endpoint") }
        guard timeout > .zero, timeout <= ConnectivityCheck.maximumTimeout else {
            throw invalid("timeout \(timeout) is out of range (more than 0 s, at most 300 s)")
        }
        let resolution = resolutionTimeout ?? min(.seconds(3), timeout)
        guard resolution > .zero, resolution <= timeout else {
            throw invalid("resolution timeout \(resolution) is out of range (more than 0 s, at most the timeout, \(timeout))")
        }
        guard ConnectivityCheck.responseSizeRange.contains(maximumResponseSize) else {
            throw invalid("maximum response size \(maximumResponseSize) is out of range (1024 to 16777216 bytes)")
        }
        if let interval, interval <= .zero { throw invalid("interval \(interval) is out of range (more than 0 s)") }
        self.endpoints = endpoints
        self.timeout = timeout
        self.resolutionTimeout = resolution
        self.maximumResponseSize = maximumResponseSize
        self.interval = interval
        self.allowsUltraConstrainedPaths = allowsUltraConstrainedPaths
        self.proxy = proxy
    }

    /// The default endpoints with default bounds: valid by construction.
    private init() {
        endpoints = ConnectivityCheck.defaultEndpoints
        timeout = .seconds(5)
        resolutionTimeout = .seconds(3)
        maximumResponseSize = 64 * 1024
        interval = nil
        allowsUltraConstrainedPaths = false
        proxy = .environment
    }


    /// The default check: five operators' public endpoints over HTTP and Google's over
    /// HTTPS, so one blocked operator does not make the answer wrong and an interceptor that
    /// answers plain HTTP does not make it `full`.
    public static let `default` = ConnectivityCheck()

    /// Google (Android), GNOME (NetworkManager), Mozilla (Firefox), Microsoft (Windows NCSI)
    /// and Apple, each with the answer it really gives, and Google's over HTTPS, as Android
    /// checks it beside the HTTP one: a TLS-intercepting network (a certificate the system's
    /// trust store does not verify) is `limited` even while the HTTP endpoints pass. Where
    /// OpenSSL 3 is missing, that endpoint counts neither way.
    public static let defaultEndpoints: [Endpoint] = [
        .known("http://connectivitycheck.gstatic.com/generate_204", .noContent),
        .known("http://nmcheck.gnome.org/check_network_status.txt",
               Expectation(status: 200, header: .init(name: "X-NetworkManager-Status", value: "online"))),
        .known("http://detectportal.firefox.com/success.txt", Expectation(status: 200, bodyPrefix: "success")),
        .known("http://www.msftconnecttest.com/connecttest.txt", Expectation(status: 200, bodyPrefix: "Microsoft Connect Test")),
        .known("http://captive.apple.com/hotspot-detect.html", Expectation(status: 200, bodyPrefix: "<HTML><HEAD><TITLE>Success</TITLE>")),
        .known("https://www.google.com/generate_204", .noContent),
    ]
}

/// A parsed `http://` or `https://` URL.
package struct HTTPTarget: Hashable, Sendable {
    /// Whether the URL is `https://`: the request goes over TLS.
    package var isTLS: Bool
    package var host: String
    /// The host as an address, when it is one.
    package var address: IPAddress?
    package var port: UInt16
    /// Path and query, starting with `/`.
    package var path: String

    /// Whether the host is `localhost` or a name under it (RFC 6761 §6.3), which stand for
    /// this machine: their loopback answer is no filtering resolver's.
    package var isLocalhostName: Bool {
        let name = (host.hasSuffix(".") ? String(host.dropLast()) : host).lowercased()
        return name == "localhost" || name.hasSuffix(".localhost")
    }

    /// `Host:` header value.
    package var hostHeader: String {
        let bracketed = address?.family == IPAddress.inet6 ? "[\(host)]" : host
        return port == defaultPort ? bracketed : "\(bracketed):\(port)"
    }

    /// `http` or `https`.
    package var scheme: String { isTLS ? "https" : "http" }
    /// 443 for `https`, 80 for `http`.
    package var defaultPort: UInt16 { isTLS ? 443 : 80 }

    /// The check's request, the same for both backends: a plain GET that asks caches and
    /// proxies for a fresh answer and closes the connection after it.
    package var request: [UInt8] { request(via: nil) }

    /// The request as it is sent to `proxy`, when there is one: in absolute form
    /// (`GET http://host/path`, RFC 9112 §3.2.2), with `Proxy-Connection` as curl sends it
    /// and `Proxy-Authorization: Basic` only when the proxy's URL holds credentials.
    package func request(via proxy: ProxyServer?) -> [UInt8] {
        var head = "GET \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\n"
        if let proxy {
            head = "GET http://\(hostHeader)\(path) HTTP/1.1\r\nHost: \(hostHeader)\r\n"
            if let credentials = proxy.credentials {
                head += "Proxy-Authorization: Basic \(Base64.encode(Array(credentials.utf8)))\r\n"
            }
            head += "Proxy-Connection: close\r\n"
        }
        return Array((head + "User-Agent: NetPath/0.1 (connectivity check)\r\nAccept: */*\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n").utf8)
    }

    /// The `CONNECT` request that asks `proxy` for a tunnel to an `https://` endpoint
    /// (RFC 9110 §9.3.6): the authority with its port, as curl sends it.
    package func connectRequest(via proxy: ProxyServer) -> [UInt8] {
        let authority = (address?.family == IPAddress.inet6 ? "[\(host)]" : host) + ":\(port)"
        var head = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
        if let credentials = proxy.credentials {
            head += "Proxy-Authorization: Basic \(Base64.encode(Array(credentials.utf8)))\r\n"
        }
        return Array((head + "User-Agent: NetPath/0.1 (connectivity check)\r\nProxy-Connection: Keep-Alive\r\n\r\n").utf8)
    }

    package init(_ url: String) throws {
        func invalid(_ reason: String) -> NetPathError {
            NetPathError(.invalidInput, "invalid URL '\(url)': \(reason)")
        }
        guard url.utf8.count <= 2048 else { throw invalid("longer than 2048 bytes") }
        guard !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { throw invalid("it contains spaces or control characters") }
        let lower = url.lowercased()
        isTLS = lower.hasPrefix("https://")
        guard isTLS || lower.hasPrefix("http://") else { throw invalid("it must start with http:// or https://") }
        let rest = url.dropFirst(isTLS ? 8 : 7)
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        guard !authority.contains("@") else { throw invalid("user information is not supported") }
        switch HTTPTarget.hostAndPort(authority, defaultPort: isTLS ? 443 : 80, invalid: invalid) {
        case .success(let target): (host, address, port) = target
        case .failure(let error): throw error
        }
        self.path = path
    }

    /// The host (lower-cased; an IPv6 address without its brackets), its address when it is
    /// one, and the port of a URL's `host[:port]` or `[v6][:port]`. (A `Result`, not a typed
    /// throw: SILGen for Apple's targets crashes on this one as a typed throw.)
    package static func hostAndPort(_ authority: Substring, defaultPort: UInt16,
                                    invalid: (String) -> NetPathError) -> Result<(host: String, address: IPAddress?, port: UInt16), NetPathError> {
        var hostPart = authority
        var portText: Substring?
        let address: IPAddress?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return .failure(invalid("unclosed [")) }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure(invalid("unexpected text after ]")) }
                portText = after.dropFirst()
            }
            // Hex digits, colons and dots only: no zone (`%eth0`), which no URL to the
            // Internet needs and which would not print back as it was read.
            guard hostPart.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x3A) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) || $0 == 0x2E }),
                  let parsed = IPAddress(String(hostPart)), parsed.family == IPAddress.inet6 else {
                return .failure(invalid("'\(hostPart)' is not an IPv6 address"))
            }
            address = parsed
        } else {
            if let colon = authority.lastIndex(of: ":") {
                hostPart = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            }
            // An address has no zone (`%…`) here either (a name with `%` is no name).
            address = hostPart.contains("%") ? nil : IPAddress(String(hostPart))
            if address == nil {
                let labels = hostPart.split(separator: ".", omittingEmptySubsequences: false)
                let valid = !hostPart.isEmpty && hostPart.utf8.count <= 253 && labels.allSatisfy { label in
                    !label.isEmpty && label.utf8.count <= 63
                        && label.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D || $0 == 0x5F }
                }
                guard valid else { return .failure(invalid("'\(hostPart)' is not a host name")) }
            }
        }
        var port = defaultPort
        if let portText {
            guard let number = UInt16(portText), number > 0 else { return .failure(invalid("'\(portText)' is not a port")) }
            port = number
        }
        return .success((String(hostPart).lowercased(), address, port))
    }
}
