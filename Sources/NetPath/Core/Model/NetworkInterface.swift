/// A network interface that a path can use, as `NWInterface` describes one.
public struct NetworkInterface: Hashable, Sendable, Codable {
    /// The kind of link an interface is, with Apple's five cases.
    public enum InterfaceType: String, Hashable, Sendable, Codable, CaseIterable {
        /// A Wi-Fi link.
        case wifi
        /// A cellular (mobile broadband) link.
        case cellular
        /// A wired Ethernet link, including virtual Ethernet (veth, bridge, bond, VLAN).
        case wiredEthernet
        /// The loopback interface.
        case loopback
        /// Anything else: tunnels, VPNs, PPP and links of unknown kind.
        case other
    }

    /// The interface name, such as `eth0`.
    public var name: String
    /// The kernel's interface index.
    public var index: Int
    /// The kind of link.
    public var type: InterfaceType

    /// Creates an interface description.
    public init(name: String, index: Int, type: InterfaceType) {
        self.name = name
        self.index = index
        self.type = type
    }
}
