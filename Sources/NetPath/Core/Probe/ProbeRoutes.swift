#if os(Linux) || os(Android)
/// Where a connectivity check's path reaches: the families it routes to the Internet, and,
/// on an IPv6-only path, the NAT64 prefix that RFC 7050's discovery looks for, through
/// which IPv4 addresses are reached (RFC 6052). Only routed families are asked for and
/// connected to: a socket bound to an interface without a route of its family takes every
/// address as on-link, and waits out the timeout instead of failing.
struct ProbeRoutes {
    /// RFC 7050's discovery of the network's NAT64 prefix, on an IPv6-only path.
    enum Discovery: Equatable {
        /// The path has IPv4 (or is not known): nothing to discover.
        case notNeeded
        /// Queries for `ipv4only.arpa` are out, `pending` of them neither answered nor
        /// given up on.
        case asking(pending: Int)
        case found(NAT64Prefix)
        /// No query revealed a prefix: the reason, for the endpoints that needed one.
        case failed(String)
    }

    let ipv4: Bool
    let ipv6: Bool
    /// The one family checked, when the check is one family's.
    let checked: IPFamily?
    var discovery: Discovery

    /// When only IPv6 is routed, the NAT64 prefix is to be discovered.
    init(ipv4: Bool, ipv6: Bool) {
        self.init(ipv4: ipv4, ipv6: ipv6, nat64: ipv6 && !ipv4, checked: nil)
    }

    /// The families one family's check reaches (SPEC §3, per network): IPv4's, or IPv6's
    /// and, on a path that routes only IPv6, IPv4 through NAT64; `nil`: both, as the
    /// path routes them.
    init(pathIPv4: Bool, pathIPv6: Bool, family: IPFamily?) {
        self.init(ipv4: pathIPv4 && family != .ipv6, ipv6: pathIPv6 && family != .ipv4, nat64: pathIPv6 && !pathIPv4, checked: family)
    }

    private init(ipv4: Bool, ipv6: Bool, nat64: Bool, checked: IPFamily?) {
        self.ipv4 = ipv4
        self.ipv6 = ipv6
        self.checked = checked
        discovery = nat64 ? .asking(pending: 0) : .notNeeded
    }

    /// Whether the prefix is still looked for.
    var isDiscovering: Bool {
        if case .asking = discovery { true } else { false }
    }

    /// Whether IPv4 is reached through NAT64 (the path routes only IPv6).
    var needsNAT64: Bool { discovery != .notNeeded }

    /// Counts one discovery query as ended (answered or given up on) while the prefix is
    /// looked for.
    mutating func discoveryQueryEnded() {
        if case .asking(let pending) = discovery { discovery = .asking(pending: pending - 1) }
    }

    /// Whether the path routes `address`'s family.
    func routes(_ address: IPAddress) -> Bool {
        address.family == IPAddress.inet ? ipv4 : ipv6
    }

    /// Why `address` is not tried: the path does not route its family (and, for IPv4 on
    /// an IPv6-only path, `why` discovery found no NAT64, when known).
    func unroutable(_ address: IPAddress, why: String? = nil) -> ConnectivityFailure {
        if address.family == IPAddress.inet && needsNAT64 {
            return .init(.noNAT64, "cannot reach \(address): the path has no IPv4 and the network no NAT64" + (why.map { " (\($0))" } ?? ""))
        }
        let family = address.family == IPAddress.inet ? "IPv4" : "IPv6"
        if let checked, checked.description != family {
            return .init(.connectionFailed, "\(address) is an \(family) address: the \(checked) check cannot reach it")
        }
        return .init(.connectionFailed, "cannot reach \(address): the path has no \(family)")
    }
}
#endif
