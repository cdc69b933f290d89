/// A snapshot of the network path: whether data can flow, over what, and why not.
///
/// It mirrors `NWPath`, as plain values, and adds ``diagnosis``: the reason a path is not
/// satisfied, in finer steps than Apple's ``UnsatisfiedReason``.
public struct NetworkPath: Hashable, Sendable, CustomReflectable {
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

    /// How well the link is doing, as iOS 26's `NWPath.LinkQuality` estimates it.
    ///
    /// Apple platforms report it from iOS 26, macOS 26, tvOS 26, watchOS 26 and visionOS 26;
    /// before those, and on Linux (which gives no such estimate: NetPath does not invent one),
    /// it is ``unknown``.
    public enum LinkQuality: String, Hashable, Sendable, Codable, CaseIterable {
        /// No estimate.
        case unknown
        /// Enough for little more than messages.
        case minimal
        /// Enough for most uses, but not for the most demanding (high-quality video).
        case moderate
        /// Good for every use.
        case good
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

    /// The fields, behind one reference: a path is handed on through several hops for each
    /// change (the reader, the monitor's storage, every subscriber), and a copy of it is one
    /// retain; a change to a copy copies the fields first (copy on write).
    private var storage: Storage

    /// Whether the path can be used.
    public var status: Status {
        get { storage.fields.status }
        _modify {
            makeUnique()
            yield &storage.fields.status
        }
    }

    /// Apple's reason, or `nil` when the path is satisfied.
    public var unsatisfiedReason: UnsatisfiedReason? {
        get { storage.fields.unsatisfiedReason }
        _modify {
            makeUnique()
            yield &storage.fields.unsatisfiedReason
        }
    }

    /// Why the path is not satisfied, or `nil` when it is.
    public var diagnosis: Diagnosis? {
        get { storage.fields.diagnosis }
        _modify {
            makeUnique()
            yield &storage.fields.diagnosis
        }
    }

    /// The usable interfaces, best first: the one the system sends Internet traffic through
    /// (on Linux, the kernel's own routing decision), then those carrying other routes to
    /// the Internet by metric, then the rest by index.
    public var availableInterfaces: [NetworkInterface] {
        get { storage.fields.availableInterfaces }
        _modify {
            makeUnique()
            yield &storage.fields.availableInterfaces
        }
    }

    /// The tunnel (VPN) the traffic leaves through, when it does: the primary interface,
    /// with ``underlyingInterface`` beneath it; `nil` otherwise.
    ///
    /// On Linux: the kernel's route to the Internet leaves through a tunnel device (tun,
    /// WireGuard, IPsec `xfrm`/`vti`, GRE, PPP, …) and another usable interface carries a
    /// route. On Apple platforms: `NWPath` lists an interface of type `other` first and a
    /// physical one after it, as it does for a VPN.
    public var tunnelInterface: NetworkInterface? {
        get { storage.fields.tunnelInterface }
        _modify {
            makeUnique()
            yield &storage.fields.tunnelInterface
        }
    }

    /// The physical interface beneath ``tunnelInterface``: the one a VPN's own packets
    /// leave through. On Linux, the best non-tunnel interface that carries a usable route
    /// (in the order of ``availableInterfaces``); on Apple platforms, the first interface
    /// after the tunnel whose type is not `other`. `nil` when there is no tunnel.
    public var underlyingInterface: NetworkInterface? {
        get { storage.fields.underlyingInterface }
        _modify {
            makeUnique()
            yield &storage.fields.underlyingInterface
        }
    }

    /// Whether the physical interface is expensive: cellular, or configured as metered
    /// (``PathMonitor/meteredInterfaces``). Under a VPN it is the interface beneath the
    /// tunnel that counts, as `NWPath` reports a VPN over cellular as expensive.
    public var isExpensive: Bool {
        get { storage.fields.isExpensive }
        _modify {
            makeUnique()
            yield &storage.fields.isExpensive
        }
    }

    /// Whether the path is constrained: Low Data Mode on Apple platforms; on Linux, the
    /// physical interface configured as constrained (``PathMonitor/constrainedInterfaces``).
    public var isConstrained: Bool {
        get { storage.fields.isConstrained }
        _modify {
            makeUnique()
            yield &storage.fields.isConstrained
        }
    }

    /// Whether the path is ultra-constrained (a satellite link): `NWPath.isUltraConstrained`
    /// on iOS 26 and later; on Linux, the physical interface configured as ultra-constrained
    /// (``PathMonitor/ultraConstrainedInterfaces``); `false` otherwise. A connectivity check
    /// does not run on such a path unless it allows it
    /// (``ConnectivityCheck/allowsUltraConstrainedPaths``).
    public var isUltraConstrained: Bool {
        get { storage.fields.isUltraConstrained }
        _modify {
            makeUnique()
            yield &storage.fields.isUltraConstrained
        }
    }

    /// How well the link is doing: `NWPath.linkQuality` on iOS 26 and later; ``LinkQuality/unknown``
    /// before and on Linux.
    public var linkQuality: LinkQuality {
        get { storage.fields.linkQuality }
        _modify {
            makeUnique()
            yield &storage.fields.linkQuality
        }
    }

    /// Whether the system routes IPv4 to the Internet through a usable interface and source.
    public var supportsIPv4: Bool {
        get { storage.fields.supportsIPv4 }
        _modify {
            makeUnique()
            yield &storage.fields.supportsIPv4
        }
    }

    /// Whether the system routes IPv6 to the Internet through a usable interface and source.
    public var supportsIPv6: Bool {
        get { storage.fields.supportsIPv6 }
        _modify {
            makeUnique()
            yield &storage.fields.supportsIPv6
        }
    }

    /// Whether the path is satisfied and at least one DNS server is configured for it.
    public var supportsDNS: Bool {
        get { storage.fields.supportsDNS }
        _modify {
            makeUnique()
            yield &storage.fields.supportsDNS
        }
    }

    /// The gateways of the routes the system chose for the Internet (IPv4's, then IPv6's);
    /// none for a route straight through a device.
    public var gateways: [String] {
        get { storage.fields.gateways }
        _modify {
            makeUnique()
            yield &storage.fields.gateways
        }
    }

    /// The gateways of ``gateways`` that do not answer: the kernel's neighbor entry for
    /// them (ARP for IPv4, neighbor discovery for IPv6) is `FAILED`. Seen without traffic
    /// of NetPath's own: the kernel learns it when anything sends through the gateway.
    /// ``status`` stays what the routes say (a route exists). Linux; empty elsewhere.
    public var unresponsiveGateways: [String] {
        get { storage.fields.unresponsiveGateways }
        _modify {
            makeUnique()
            yield &storage.fields.unresponsiveGateways
        }
    }

    /// An opaque, stable identifier of the network the path is on (16 hex digits), `nil`
    /// while unknown: on Linux, a keyed hash (SipHash-2-4, keyed from the machine ID) of the
    /// primary gateways' link-layer addresses, as the kernel's neighbor entries hold them;
    /// so another router behind the same interface and gateway address is another network,
    /// and a log carries no MAC address. `nil` without a gateway, before the gateway's
    /// link-layer address is known, and on Apple platforms.
    public var network: String? {
        get { storage.fields.network }
        _modify {
            makeUnique()
            yield &storage.fields.network
        }
    }

    /// Whether the Internet answers, when the monitor runs a connectivity check
    /// (``ConnectivityCheck``); `unknown` otherwise.
    public var connectivity: Connectivity {
        get { storage.fields.connectivity }
        _modify {
            makeUnique()
            yield &storage.fields.connectivity
        }
    }

    /// The captive portal's login address, when ``connectivity`` is `portal` and it
    /// redirected (or the network announced it: DHCP option 114, RFC 8910).
    public var portalURL: String? {
        get { storage.fields.portalURL }
        _modify {
            makeUnique()
            yield &storage.fields.portalURL
        }
    }

    /// Who said the path is expensive, when it is (`nil` otherwise).
    public var expensiveSource: Source? {
        get { storage.fields.expensiveSource }
        _modify {
            makeUnique()
            yield &storage.fields.expensiveSource
        }
    }

    /// Who gave ``connectivity``: NetPath's own check or the system's (`nil` while unknown
    /// and unchecked).
    public var connectivitySource: Source? {
        get { storage.fields.connectivitySource }
        _modify {
            makeUnique()
            yield &storage.fields.connectivitySource
        }
    }

    /// The proxy NetPath's check reached the Internet through (`http://host:port`, or
    /// `socks5h://host:port`, without credentials), when its verdict came through one (``ConnectivityCheck/proxy``); `nil`
    /// for a direct answer or another source's verdict.
    public var connectivityProxy: String? {
        get { storage.fields.connectivityProxy }
        _modify {
            makeUnique()
            yield &storage.fields.connectivityProxy
        }
    }

    /// Each address family's verdict, when the monitor checks (SPEC §3, per network): the
    /// families the path routes, each over its own sockets, or NetworkManager's
    /// `Ip4Connectivity`/`Ip6Connectivity` where it decides. A family missing was not
    /// checked. ``connectivity(for:)`` reads it.
    public var familyConnectivity: [IPFamily: FamilyConnectivity] {
        get { storage.fields.familyConnectivity }
        _modify {
            makeUnique()
            yield &storage.fields.familyConnectivity
        }
    }

    /// The DNS servers of a satisfied path, as the resolver files name them (Linux). Not
    /// part of `==`: a DHCP client that rewrites `resolv.conf` changes no path users see, but
    /// a connectivity check in flight starts over (``isIdentical(to:)``).
    package var dnsServers: [String] {
        get { storage.fields.dnsServers }
        _modify {
            makeUnique()
            yield &storage.fields.dnsServers
        }
    }

    /// How many resumes from sleep the source had seen when it made the path (logind's
    /// `PrepareForSleep(false)`, Linux). Not part of `==`: a resume alone changes no path
    /// users see, but a connectivity verdict from before it is not current any more.
    package var wakeCount: UInt64 {
        get { storage.fields.wakeCount }
        _modify {
            makeUnique()
            yield &storage.fields.wakeCount
        }
    }

    /// A path's stored values (``NetworkPath/storage``); the ignored ones take no part in `==`.
    fileprivate struct Fields: Hashable, Sendable {
        var status: Status
        var unsatisfiedReason: UnsatisfiedReason?
        var diagnosis: Diagnosis?
        var availableInterfaces: [NetworkInterface]
        var tunnelInterface: NetworkInterface?
        var underlyingInterface: NetworkInterface?
        var isExpensive: Bool
        var isConstrained: Bool
        var isUltraConstrained: Bool
        var linkQuality: LinkQuality
        var supportsIPv4: Bool
        var supportsIPv6: Bool
        var supportsDNS: Bool
        var gateways: [String]
        var unresponsiveGateways: [String]
        var network: String?
        var connectivity: Connectivity
        var portalURL: String?
        var expensiveSource: Source?
        var connectivitySource: Source?
        var connectivityProxy: String?
        var familyConnectivity: [IPFamily: FamilyConnectivity] = [:]
        @IgnoredByEquality var dnsServers: [String] = []
        @IgnoredByEquality var wakeCount: UInt64 = 0
    }

    private final class Storage: @unchecked Sendable {
        // `@unchecked`: changed only through `makeUnique()`, when no other path holds it.
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    /// Makes the storage this path's own before a change.
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
    }

    public static func == (lhs: NetworkPath, rhs: NetworkPath) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public func hash(into hasher: inout Hasher) {
        storage.fields.hash(into: &hasher)
    }

    /// The fields, as `dump` and a debugger show a value's stored properties.
    public var customMirror: Mirror {
        Mirror(reflecting: storage.fields)
    }

    /// Where a fact about the path comes from (SPEC §1, §3: the system's knowledge first).
    public enum Source: String, Sendable, Hashable, Codable, CaseIterable {
        /// The physical interface is cellular.
        case interfaceType
        /// The app or the command line named the interface (``PathMonitor/Configuration/meteredInterfaces``).
        case configuration
        /// NetworkManager: the device's `Metered` (yes, guess-yes) or its connectivity check.
        case networkManager
        /// The Flatpak portal's `org.freedesktop.portal.NetworkMonitor`.
        case flatpakPortal
        /// systemd-networkd: the captive-portal URL the network announced.
        case systemdNetworkd
        /// NetPath's own connectivity check (``ConnectivityCheck``).
        case check
        /// Apple's `NWPath`.
        case system
    }

    /// Creates a path. Every field has the value of an unsatisfied path by default.
    public init(
        status: Status,
        unsatisfiedReason: UnsatisfiedReason? = nil,
        diagnosis: Diagnosis? = nil,
        availableInterfaces: [NetworkInterface] = [],
        tunnelInterface: NetworkInterface? = nil,
        underlyingInterface: NetworkInterface? = nil,
        isExpensive: Bool = false,
        isConstrained: Bool = false,
        isUltraConstrained: Bool = false,
        linkQuality: LinkQuality = .unknown,
        supportsIPv4: Bool = false,
        supportsIPv6: Bool = false,
        supportsDNS: Bool = false,
        gateways: [String] = [],
        unresponsiveGateways: [String] = [],
        network: String? = nil,
        connectivity: Connectivity = .unknown,
        portalURL: String? = nil,
        expensiveSource: Source? = nil,
        connectivitySource: Source? = nil,
        connectivityProxy: String? = nil
    ) {
        storage = Storage(Fields(
            status: status, unsatisfiedReason: unsatisfiedReason, diagnosis: diagnosis,
            availableInterfaces: availableInterfaces, tunnelInterface: tunnelInterface,
            underlyingInterface: underlyingInterface, isExpensive: isExpensive, isConstrained: isConstrained,
            isUltraConstrained: isUltraConstrained, linkQuality: linkQuality, supportsIPv4: supportsIPv4,
            supportsIPv6: supportsIPv6, supportsDNS: supportsDNS, gateways: gateways,
            unresponsiveGateways: unresponsiveGateways, network: network, connectivity: connectivity,
            portalURL: portalURL, expensiveSource: expensiveSource ?? (isExpensive ? .interfaceType : nil),
            connectivitySource: connectivitySource, connectivityProxy: connectivityProxy
        ))
    }

    /// Whether the path equals `other` and has the same DNS servers and wake count: whether a
    /// source has anything new to hand on (a DNS change or a resume restarts a connectivity
    /// check).
    package func isIdentical(to other: NetworkPath?) -> Bool {
        guard let other else { return false }
        if storage === other.storage { return true }
        return self == other && dnsServers == other.dnsServers && wakeCount == other.wakeCount
    }

    /// Whether the path uses an interface of `type` (as `NWPath.usesInterfaceType`).
    ///
    /// - Parameters:
    ///   - type: The interface type to look for.
    /// - Returns: `true` when the primary interface of a satisfied path has that type, or,
    ///   under a VPN, the interface beneath the tunnel does (as `NWPath` answers for a VPN
    ///   over Wi-Fi: it uses both `other` and `wifi`).
    public func usesInterfaceType(_ type: NetworkInterface.InterfaceType) -> Bool {
        status == .satisfied && (availableInterfaces.first?.type == type || underlyingInterface?.type == type)
    }

    /// The interface the path's traffic leaves through, when it is satisfied.
    public var primaryInterface: NetworkInterface? {
        status == .satisfied ? availableInterfaces.first : nil
    }

    /// `family`'s own verdict: ``Connectivity/unknown`` when that family was not checked
    /// (the path has no route or address of it, or the monitor does not check).
    ///
    /// A dual-stack network whose IPv6 forwards nothing is ``connectivity`` `full` and
    /// `connectivity(for: .ipv6)` `limited`.
    public func connectivity(for family: IPFamily) -> Connectivity {
        familyConnectivity[family]?.connectivity ?? .unknown
    }

    /// Whether the traffic leaves through a tunnel (a VPN): ``tunnelInterface`` is set.
    public var usesVPN: Bool { tunnelInterface != nil }

    /// The interface that physically carries the traffic: the one beneath the tunnel under
    /// a VPN, else the primary interface; `nil` when the path is not satisfied.
    public var physicalInterface: NetworkInterface? {
        status == .satisfied ? underlyingInterface ?? availableInterfaces.first : nil
    }
}
