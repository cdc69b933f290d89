/// A snapshot of the network path: whether data can flow, over what, and why not.
///
/// It mirrors `NWPath`, as plain values, and adds ``diagnosis``: the reason a path is not
/// satisfied, in finer steps than Apple's ``UnsatisfiedReason``.
public struct NetworkPath: Hashable, Sendable {
    /// Whether the path can be used.
    public enum Status: String, Hashable, Sendable, Codable, CaseIterable {
        /// A usable default route exists.
        case satisfied
        /// No usable route exists.
        case unsatisfied
        /// An interface is waiting for something before it can be used, such as Wi-Fi
        /// authentication (the Linux operstate `DORMANT`).
        case requiresConnection
    }

    /// Apple's reason for an unsatisfied path. On Linux it is always ``notAvailable``.
    public enum UnsatisfiedReason: String, Hashable, Sendable, Codable, CaseIterable {
        /// No usable network is available.
        case notAvailable
        /// The user denied cellular data.
        case cellularDenied
        /// The user denied Wi-Fi.
        case wifiDenied
        /// The user denied local-network access.
        case localNetworkDenied
        /// A required VPN is not active.
        case vpnInactive
    }

    /// Why a path is not satisfied: the first of these that holds, in this order.
    public enum Diagnosis: String, Hashable, Sendable, Codable, CaseIterable {
        /// A usable route to the Internet exists, but only through interfaces the monitor's
        /// type filter excludes.
        case filtered
        /// No considered interface (other than loopback) is administratively up.
        case noInterface
        /// Some interfaces are up, but none has carrier.
        case noCarrier
        /// Some interfaces have carrier, but none holds a usable address, or the route the
        /// system would use has no usable source address.
        case noAddress
        /// The system refuses traffic to the Internet: the route or rule that applies is
        /// unreachable, prohibit or blackhole (a VPN kill switch, for instance).
        case blocked
        /// Usable addresses exist, but no route to the Internet.
        case noDefaultRoute
    }

    /// Whether the path can be used.
    public var status: Status
    /// Apple's reason, or `nil` when the path is satisfied.
    public var unsatisfiedReason: UnsatisfiedReason?
    /// Why the path is not satisfied, or `nil` when it is.
    public var diagnosis: Diagnosis?
    /// The usable interfaces, best first: the one the system sends Internet traffic through
    /// (on Linux, the kernel's own routing decision), then those carrying other routes to
    /// the Internet by metric, then the rest by index.
    public var availableInterfaces: [NetworkInterface]
    /// Whether the primary interface is expensive: cellular, or configured as metered
    /// (``PathMonitor/meteredInterfaces``).
    public var isExpensive: Bool
    /// Whether the path is constrained: Low Data Mode on Apple platforms; on Linux, the
    /// primary interface configured as constrained (``PathMonitor/constrainedInterfaces``).
    public var isConstrained: Bool
    /// Whether the system routes IPv4 to the Internet through a usable interface and source.
    public var supportsIPv4: Bool
    /// Whether the system routes IPv6 to the Internet through a usable interface and source.
    public var supportsIPv6: Bool
    /// Whether the path is satisfied and at least one DNS server is configured for it.
    public var supportsDNS: Bool
    /// The gateways of the routes the system chose for the Internet (IPv4's, then IPv6's);
    /// none for a route straight through a device.
    public var gateways: [String]
    /// Whether the Internet answers, when the monitor runs a connectivity check
    /// (``ConnectivityCheck``); `unknown` otherwise.
    public var connectivity: Connectivity
    /// The captive portal's login address, when ``connectivity`` is `portal` and it
    /// redirected.
    public var portalURL: String?

    /// Creates a path. Every field has the value of an unsatisfied path by default.
    public init(
        status: Status,
        unsatisfiedReason: UnsatisfiedReason? = nil,
        diagnosis: Diagnosis? = nil,
        availableInterfaces: [NetworkInterface] = [],
        isExpensive: Bool = false,
        isConstrained: Bool = false,
        supportsIPv4: Bool = false,
        supportsIPv6: Bool = false,
        supportsDNS: Bool = false,
        gateways: [String] = [],
        connectivity: Connectivity = .unknown,
        portalURL: String? = nil
    ) {
        self.status = status
        self.unsatisfiedReason = unsatisfiedReason
        self.diagnosis = diagnosis
        self.availableInterfaces = availableInterfaces
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
        self.supportsIPv4 = supportsIPv4
        self.supportsIPv6 = supportsIPv6
        self.supportsDNS = supportsDNS
        self.gateways = gateways
        self.connectivity = connectivity
        self.portalURL = portalURL
    }

    /// Whether the path uses an interface of `type` (as `NWPath.usesInterfaceType`).
    ///
    /// - Parameters:
    ///   - type: The interface type to look for.
    /// - Returns: `true` when the primary interface of a satisfied path has that type.
    public func usesInterfaceType(_ type: NetworkInterface.InterfaceType) -> Bool {
        status == .satisfied && availableInterfaces.first?.type == type
    }

    /// The interface the path's traffic leaves through, when it is satisfied.
    public var primaryInterface: NetworkInterface? {
        status == .satisfied ? availableInterfaces.first : nil
    }
}
