/// SPEC 2.7: the interface type from facts netlink, ioctl and sysfs give. Pure.
package enum InterfaceClassifier {
    // Arrays, not sets: a handful of entries, and a Set's first use costs start-up time (the
    // runtime looks up its element's Hashable conformance by scanning every conformance).
    package static let tunnelKinds: [String] = [
        "tun", "wireguard", "ipip", "ip6tnl", "gre", "gretap", "ip6gre", "ip6gretap", "erspan",
        "ip6erspan", "sit", "vti", "vti6", "xfrm", "vxlan", "geneve", "bareudp", "ppp", "l2tp",
        "openvpn", "amt", "gtp",
    ]
    package static let tunnelHardware: [UInt16] = [Netlink.HardwareType.none, Netlink.HardwareType.ppp, Netlink.HardwareType.tunnel,
                                           Netlink.HardwareType.tunnel6, Netlink.HardwareType.sit, Netlink.HardwareType.ipgre,
                                           Netlink.HardwareType.ip6gre]
    package static let cellularPrefixes = ["wwan", "rmnet", "ccmni"]

    /// Whether a link is a tunnel (a VPN's device, or PPP): a tunnel kind, or a tunnel's
    /// hardware type. Such a link is typed `other`; a path through it names the physical
    /// interface beneath (``NetworkPath/underlyingInterface``).
    package static func isTunnel(_ link: LinkState) -> Bool {
        guard link.hardwareType != Netlink.HardwareType.loopback, link.type != .cellular, link.type != .wifi else { return false }
        if let kind = link.kind, tunnelKinds.contains(kind) { return true }
        return tunnelHardware.contains(link.hardwareType)
    }

    /// The type of a link; the first rule that matches wins.
    ///
    /// - Parameters:
    ///   - hardwareType: `ifi_type` (`ARPHRD_*`).
    ///   - kind: `IFLA_INFO_KIND`, if any.
    ///   - name: the interface name.
    ///   - isWireless: the wireless-extensions ioctl answered, or sysfs shows `phy80211`/`wireless`.
    ///   - deviceType: `DEVTYPE` from the sysfs uevent, if read.
    /// - Returns: One of Apple's five interface types.
    package static func classify(
        hardwareType: UInt16, kind: String?, name: String, isWireless: Bool, deviceType: String?
    ) -> NetworkInterface.InterfaceType {
        if hardwareType == Netlink.HardwareType.loopback { return .loopback }
        if isWireless || deviceType == "wlan" { return .wifi }
        if deviceType == "wwan" || hardwareType == Netlink.HardwareType.rawIP
            || cellularPrefixes.contains(where: { name.hasPrefix($0) }) {
            return .cellular
        }
        if let kind, tunnelKinds.contains(kind) { return .other }
        if tunnelHardware.contains(hardwareType) { return .other }
        if hardwareType == Netlink.HardwareType.ether { return .wiredEthernet }
        return .other
    }
}
