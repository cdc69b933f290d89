import NetPath

extension NetworkPath {
    /// A satisfied path over one interface, for tests and previews.
    ///
    /// - Parameters:
    ///   - type: The interface type (Wi-Fi by default).
    ///   - name: The interface name; a typical one for the type by default.
    /// - Returns: A satisfied IPv4 and IPv6 path with DNS, expensive when cellular.
    public static func online(_ type: NetworkInterface.InterfaceType = .wifi, name: String? = nil) -> NetworkPath {
        let defaultName: String = switch type {
        case .wifi: "wlan0"
        case .cellular: "wwan0"
        case .wiredEthernet: "eth0"
        case .loopback: "lo"
        case .other: "tun0"
        }
        return NetworkPath(
            status: .satisfied,
            availableInterfaces: [NetworkInterface(name: name ?? defaultName, index: 2, type: type)],
            isExpensive: type == .cellular,
            supportsIPv4: true, supportsIPv6: true, supportsDNS: true,
            gateways: ["192.0.2.1"]
        )
    }

    /// A satisfied path through a VPN tunnel over a physical interface, as a VPN app makes
    /// it, for tests and previews.
    ///
    /// - Parameters:
    ///   - type: The physical interface's type beneath the tunnel (Wi-Fi by default).
    ///   - tunnel: The tunnel's name (`utun3`, `wg0`, `tun0`…).
    /// - Returns: A satisfied path whose primary interface is the tunnel (type `other`),
    ///   with the physical interface beneath it; expensive when that one is cellular.
    public static func vpn(over type: NetworkInterface.InterfaceType = .wifi, tunnel: String = "utun3") -> NetworkPath {
        var path = online(type)
        let tunnelInterface = NetworkInterface(name: tunnel, index: 9, type: .other)
        path.tunnelInterface = tunnelInterface
        path.underlyingInterface = path.availableInterfaces.first
        path.availableInterfaces.insert(tunnelInterface, at: 0)
        path.gateways = []
        return path
    }

    /// An unsatisfied path, for tests and previews.
    ///
    /// - Parameters:
    ///   - diagnosis: Why it is not satisfied (no interface by default).
    /// - Returns: An unsatisfied path with reason `notAvailable`.
    public static func offline(_ diagnosis: Diagnosis = .noInterface) -> NetworkPath {
        NetworkPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: diagnosis)
    }
}

extension NetworkPath {
    /// This path as a connectivity check judged it, for tests of code that reads the
    /// verdicts (a banner for a captive portal, a fallback to IPv4 when IPv6 is broken).
    ///
    /// ```swift
    /// // Dual stack whose IPv6 forwards nothing: full overall, IPv6 limited.
    /// let network = SimulatedNetwork(.online(.wifi).checked(.full, ipv4: .full, ipv6: .limited))
    /// ```
    ///
    /// - Parameters:
    ///   - connectivity: The overall verdict (``NetworkPath/connectivity``).
    ///   - ipv4: IPv4's own verdict (``NetworkPath/connectivity(for:)``); `nil`: not checked.
    ///   - ipv6: IPv6's own verdict; `nil`: not checked.
    ///   - portalURL: Where to log in, for a `portal` verdict.
    /// - Returns: The path with those verdicts; a family short of `full` fails at the HTTP
    ///   step, or at the gateway when the path's gateway of that family does not answer.
    public func checked(_ connectivity: Connectivity, ipv4: Connectivity? = nil, ipv6: Connectivity? = nil,
                        portalURL: String? = nil) -> NetworkPath {
        var path = self
        path.connectivity = connectivity
        path.portalURL = connectivity == .portal ? portalURL : nil
        path.connectivitySource = .check
        path.familyConnectivity = [:]
        for (family, verdict) in [(IPFamily.ipv4, ipv4), (.ipv6, ipv6)] {
            guard let verdict else { continue }
            let gatewayDown = path.unresponsiveGateways.contains { $0.contains(":") == (family == .ipv6) }
            path.familyConnectivity[family] = FamilyConnectivity(
                connectivity: verdict, failedStep: verdict == .full ? nil : (gatewayDown ? .gateway : .http))
        }
        return path
    }

    /// This path with its default gateways not answering on the link (the kernel's neighbor
    /// entries `FAILED`: ``NetworkPath/unresponsiveGateways``), as a dead router reads.
    public func withUnresponsiveGateways() -> NetworkPath {
        var path = self
        path.unresponsiveGateways = path.gateways
        return path
    }

    /// This path on another network (``NetworkPath/network``): the same interface and
    /// gateway address, another router, as moving between two Wi-Fi networks whose routers
    /// both use 192.168.1.1 reads.
    public func onNetwork(_ network: String) -> NetworkPath {
        var path = self
        path.network = network
        return path
    }
}
