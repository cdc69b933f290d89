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
