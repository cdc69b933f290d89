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
    /// Time from the start of the check to the verdict (``latencyMilliseconds`` as a `Duration`).
    public var latency: Duration? {
        get { latencyMilliseconds.map(Duration.milliseconds(exactly:)) }
        set { latencyMilliseconds = newValue.map { $0.seconds * 1_000 } }
    }
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
    /// The verdict over IPv4 sockets alone (A lookups, IPv4 connections), or `nil` when
    /// IPv4 was not checked: the path has no IPv4 route or address, and nothing of ours
    /// was sent over it.
    public var ipv4: FamilyConnectivity?
    /// The verdict over IPv6 sockets alone (AAAA lookups, IPv6 connections, and NAT64 for
    /// an IPv4-literal endpoint on an IPv6-only path), or `nil` when IPv6 was not checked.
    public var ipv6: FamilyConnectivity?

    /// Creates a result.
    public init(connectivity: Connectivity, portalURL: String? = nil, url: String? = nil, httpStatus: Int? = nil,
                latencyMilliseconds: Double? = nil, failure: ConnectivityFailure? = nil, nat64Prefix: String? = nil,
                proxy: String? = nil, ipv4: FamilyConnectivity? = nil, ipv6: FamilyConnectivity? = nil) {
        self.ipv4 = ipv4
        self.ipv6 = ipv6
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

extension ConnectivityResult {
    /// The verdict of `family`'s own sockets, or `nil` when that family was not checked.
    public func family(_ family: IPFamily) -> FamilyConnectivity? {
        family == .ipv4 ? ipv4 : ipv6
    }
}

/// An address family, as a connectivity check decides each on its own sockets.
public enum IPFamily: String, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case ipv4
    case ipv6

    /// `IPv4` or `IPv6`, as people write it.
    public var description: String { self == .ipv4 ? "IPv4" : "IPv6" }
}

/// The steps a connection to the Internet takes, in order: where a check that fails names
/// the first one that failed.
public enum ConnectivityStep: String, Hashable, Sendable, Codable, CaseIterable {
    /// The default gateway does not answer on the link (its neighbor entry failed: no ARP
    /// or neighbor-discovery reply). Costs no traffic of the check's: the kernel's table
    /// says so.
    case gateway
    /// Names did not resolve: no DNS server, no answer, or no address of the family.
    case dns
    /// No connection was made: refused, unreachable, or never answered (a router that
    /// forwards nothing).
    case connection
    /// A connection was made, but HTTP did not give the expected answer: an error status,
    /// a portal's page, a TLS failure, or no answer in time.
    case http
}

/// One address family's verdict: the same rules as the overall one, over that family's
/// sockets alone.
public struct FamilyConnectivity: Hashable, Sendable, Codable {
    /// The verdict of this family's sockets.
    public var connectivity: Connectivity
    /// The first step that failed, when the verdict is not `full` (`nil` for `full`).
    public var failedStep: ConnectivityStep?
    /// What went wrong, when the verdict is not `full`.
    public var failure: ConnectivityFailure?
    /// The endpoint the verdict rests on.
    public var url: String?
    /// That endpoint's HTTP status, when it answered.
    public var httpStatus: Int?
    /// Time from the start of the check to this family's verdict, in milliseconds.
    public var latencyMilliseconds: Double?
    /// Time from the start of the check to this family's verdict (``latencyMilliseconds`` as
    /// a `Duration`).
    public var latency: Duration? {
        get { latencyMilliseconds.map(Duration.milliseconds(exactly:)) }
        set { latencyMilliseconds = newValue.map { $0.seconds * 1_000 } }
    }

    /// Creates a family's verdict.
    public init(connectivity: Connectivity, failedStep: ConnectivityStep? = nil, failure: ConnectivityFailure? = nil,
                url: String? = nil, httpStatus: Int? = nil, latencyMilliseconds: Double? = nil) {
        self.connectivity = connectivity
        self.failedStep = failedStep
        self.failure = failure
        self.url = url
        self.httpStatus = httpStatus
        self.latencyMilliseconds = latencyMilliseconds
    }

    /// A family's verdict from its check's result: its failing step is the failure's,
    /// or ``ConnectivityStep/gateway`` when the check did not pass and the family's default
    /// gateway does not answer (the kernel's neighbor entry).
    ///
    /// - Parameters:
    ///   - result: The check of that family's sockets.
    ///   - gatewayUnresponsive: The family's default gateway does not answer on the link.
    package init(_ result: ConnectivityResult, gatewayUnresponsive: Bool = false) {
        let passed = result.connectivity == .full
        let step: ConnectivityStep? = passed ? nil : gatewayUnresponsive ? .gateway
            : result.connectivity == .portal ? .http : result.failure?.step
        self.init(connectivity: result.connectivity, failedStep: step, failure: passed ? nil : result.failure,
                  url: result.url, httpStatus: result.httpStatus, latencyMilliseconds: result.latencyMilliseconds)
    }

    /// `IPv6: limited — the router forwards nothing`: the family, its verdict, and in words
    /// where it broke when it is not `full`.
    ///
    /// - Parameters:
    ///   - family: The family this is the verdict of.
    /// - Returns: One phrase, without a newline.
    package func summary(of family: IPFamily) -> String {
        let words = "\(family): \(connectivity.rawValue)"
        guard connectivity != .full, let reason else { return words }
        return words + " — " + reason
    }

    /// Where the family broke, in words: the step, and what failed at it.
    package var reason: String? {
        switch failedStep {
        case .gateway?: return "the router does not answer on the link"
        case .connection? where failure?.kind == .timedOut: return "the router forwards nothing (connections are never answered)"
        case .dns?: return "DNS: " + (failure.map { NetworkPath.visible($0.message) } ?? "names do not resolve")
        case .connection?: return "connection: " + (failure.map { NetworkPath.visible($0.message) } ?? "no connection")
        case .http?: return "HTTP: " + (failure.map { NetworkPath.visible($0.message) } ?? "not the expected answer")
        case nil: return failure.map { NetworkPath.visible($0.message) }
        }
    }

    /// The failure with the family's first failing step as its step (the gateway's, when
    /// the gateway does not answer): what a path's JSON carries.
    package var failureWithItsStep: ConnectivityFailure? {
        guard var failure else { return nil }
        failure.step = failedStep ?? failure.step
        return failure
    }

    /// The verdict alone, as a path carries it: its time and endpoint left out, so that a
    /// check that ends the same way makes no new path.
    package var forPath: FamilyConnectivity {
        FamilyConnectivity(connectivity: connectivity, failedStep: failedStep, failure: failure)
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
    /// The step of the way that failed: named by the failure's kind, except that a
    /// timeout after the connection was made is ``ConnectivityStep/http``; `nil` for a
    /// failure that is no step's (cancelled, the system's, the path unsatisfied).
    public var step: ConnectivityStep?

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
    ///
    /// - Parameters:
    ///   - kind: What kind of failure it is.
    ///   - message: One line in words.
    ///   - step: The step that failed, when the kind does not tell (a timeout after the
    ///     connection was made: ``ConnectivityStep/http``); by default the kind's.
    public init(_ kind: Kind, _ message: String, step: ConnectivityStep? = nil) {
        self.kind = kind
        self.message = message
        self.step = step ?? kind.step
    }

    public var description: String { message }

    /// Failures are equal when their kind and message are: the step follows from where
    /// the failure was made, and says nothing the message does not.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.kind == rhs.kind && lhs.message == rhs.message
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(message)
    }
}

extension ConnectivityFailure.Kind {
    /// The step a failure of this kind stops at (a timeout: while connecting, unless said
    /// otherwise).
    public var step: ConnectivityStep? {
        switch self {
        case .noDNSServer, .dnsFailure, .nameNotResolved, .resolutionTimedOut, .filteredAnswer: .dns
        case .connectionFailed, .noRoute, .noNAT64, .proxyFailed, .timedOut: .connection
        case .tlsFailed, .malformedAnswer, .httpError, .unexpectedAnswer: .http
        case .pathUnsatisfied, .cancelled, .systemFailure: nil
        }
    }
}

extension Duration {
    /// `milliseconds` (a fraction kept to the nanosecond; zero for a value no `Duration`
    /// holds: not finite, or beyond about 292 years).
    static func milliseconds(exactly milliseconds: Double) -> Duration {
        let nanoseconds = (milliseconds * 1_000_000).rounded()
        return .nanoseconds(nanoseconds.isFinite && abs(nanoseconds) < 9e18 ? Int64(nanoseconds) : 0)
    }
}
