/// Whether the Internet really answers over a satisfied path: the verdict of a
/// ``ConnectivityCheck``. A satisfied path only says a route exists; behind a captive portal
/// or with broken DNS it is still satisfied, and this says what actually answers.
public enum Connectivity: String, Hashable, Sendable, Codable, CaseIterable {
    /// Not checked (yet), or the check is off.
    case unknown
    /// The path is not satisfied: nothing was sent. (Named `offline`, not `none`, so
    /// that it never reads as `Optional.none`.)
    case offline
    /// Satisfied, but no endpoint's name could be resolved: DNS does not work.
    case local
    /// A name resolved (or the URL holds an address), but no endpoint answered HTTP in time,
    /// or one answered with an HTTP error (4xx, 5xx but 511: the endpoint is broken or gone,
    /// its status in ``ConnectivityResult/httpStatus``), or none can be reached from this path
    /// (no IPv4 and no NAT64).
    case limited
    /// An endpoint answered as a captive portal does: a redirect, a login page (an
    /// unexpected 2xx), or 511, even while another endpoint passed.
    /// ``ConnectivityResult/portalURL`` says where to log in.
    case portal
    /// An endpoint gave the expected answer, and none answered as a portal does.
    case full
}

/// The outcome of one connectivity check.
public struct ConnectivityResult: Hashable, Sendable, Codable {
    /// The verdict.
    public var connectivity: Connectivity
    /// Where to log in, when the verdict is `portal`: the redirect's target, else the login
    /// page's `<meta http-equiv="refresh">` target, else the URL of the endpoint that
    /// answered so (what Android and Apple open).
    public var portalURL: String?
    /// The endpoint the verdict rests on (the one that passed, or answered, or was tried).
    public var url: String?
    /// That endpoint's HTTP status, when it answered.
    public var httpStatus: Int?
    /// Time from the start of the check to the verdict, in milliseconds.
    public var latencyMilliseconds: Double?
    /// What went wrong, when the verdict is not `full`: a kind to switch on and a message
    /// that names the endpoint or the address at fault.
    public var failure: ConnectivityFailure?
    /// The network's NAT64 prefix (`64:ff9b::/96`), when the path is IPv6-only and the check
    /// discovered one (RFC 7050: the AAAA records of `ipv4only.arpa` from the path's DNS
    /// servers); `nil` otherwise. An endpoint given as an IPv4 literal was reached through it.
    public var nat64Prefix: String?
    /// The HTTP proxy the verdict's endpoint was reached through (`http://host:port`, never
    /// its credentials; ``ConnectivityCheck/proxy``), or `nil` for a direct connection.
    public var proxy: String?

    /// Creates a result.
    public init(connectivity: Connectivity, portalURL: String? = nil, url: String? = nil, httpStatus: Int? = nil,
                latencyMilliseconds: Double? = nil, failure: ConnectivityFailure? = nil, nat64Prefix: String? = nil,
                proxy: String? = nil) {
        self.connectivity = connectivity
        self.portalURL = portalURL
        self.url = url
        self.httpStatus = httpStatus
        self.latencyMilliseconds = latencyMilliseconds
        self.failure = failure
        self.nat64Prefix = nat64Prefix
        self.proxy = proxy
    }
}

/// Why a connectivity check did not end `full`.
public struct ConnectivityFailure: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    /// What kind of failure it is.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// The path is not satisfied: nothing was sent.
        case pathUnsatisfied
        /// The resolver configuration names no DNS server.
        case noDNSServer
        /// The DNS servers could not be reached or did not answer.
        case dnsFailure
        /// The DNS servers answered that the name has no address.
        case nameNotResolved
        /// No DNS answer came within the resolution timeout.
        case resolutionTimedOut
        /// The name resolved only to a loopback or unspecified address (`127.0.0.1`,
        /// `0.0.0.0`, `::1`, `::`): the network's DNS filters it (a blocklist, a portal that
        /// has not let this machine through). Never connected to: a web server on this
        /// machine would answer for the Internet. The verdict is `limited`.
        case filteredAnswer
        /// No connection could be made to any of the endpoint's addresses.
        case connectionFailed
        /// This machine has no route for the connection right now (`ENETUNREACH`,
        /// `ENETDOWN` or `EADDRNOTAVAIL` at connect): a local failure, as when the path is
        /// being lost while the check runs. It says nothing about the Internet: a monitor
        /// gives no verdict for it (its connectivity stays `unknown`) and checks again.
        case noRoute
        /// The endpoint is an IPv4 address, the path has no IPv4, and the network has no
        /// NAT64 to reach it through (RFC 7050 found no prefix).
        case noNAT64
        /// The proxy the endpoint's request goes through (``ConnectivityCheck/proxy``)
        /// failed: it refused or dropped the connection, answered that it cannot reach the
        /// endpoint (502, 503, 504, a SOCKS5 failure) or wants credentials (407), refused a
        /// tunnel, or cannot be used (a SOCKS4 proxy). The message names it. The verdict is `limited`: as for curl, the
        /// Internet does not answer through it.
        case proxyFailed
        /// An `https://` endpoint's TLS failed: its certificate does not verify against the
        /// system's trust store or for its name, or what answered does not speak TLS (a
        /// plain-HTTP server on its port). The message names the reason, as OpenSSL gives
        /// it. What an interceptor does: the verdict is `limited` (`portal` when an HTTP
        /// endpoint answered as a portal), even while another endpoint passes.
        case tlsFailed
        /// The check's time ran out while connecting or waiting for the answer.
        case timedOut
        /// The answer was not HTTP, or ended early.
        case malformedAnswer
        /// The endpoint answered with an HTTP error (4xx, 5xx but 511): it is broken or gone.
        case httpError
        /// The endpoint answered, but not as expected: what a captive portal does.
        case unexpectedAnswer
        /// The check was cancelled.
        case cancelled
        /// The system refused a resource the check needs (a thread, a descriptor), or the
        /// platform has no check.
        case systemFailure
    }

    /// What kind of failure it is.
    public var kind: Kind
    /// One line in words, naming what is at fault.
    public var message: String

    /// Whether the failure is this machine's, not the network's: no route for the
    /// connection (``Kind-swift.enum/noRoute``), a cancelled check, or a resource the system
    /// refused. Such a failure is no verdict on the Internet.
    public var isLocal: Bool {
        switch kind {
        case .noRoute, .cancelled, .systemFailure, .pathUnsatisfied: true
        default: false
        }
    }

    /// Creates a failure.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
