#if os(Linux) || os(Android)

extension InterfaceClassifier {
    /// SPEC 2.7 with the facts that hold in the monitored namespace: the wireless ioctl runs
    /// on a socket made there; sysfs shows the caller's namespace, so it is read only when
    /// the monitor watches the caller's own (`foreign` is false).
    static func classify(_ link: LinkMessage, ioctlSocket: FileDescriptor?, foreign: Bool) -> NetworkInterface.InterfaceType {
        let name = link.name ?? ""
        var isWireless = false
        var deviceType: String?
        // A link with a kind (IFLA_INFO_KIND: veth, bridge, macvlan, vlan, tun…) is a virtual
        // device: never a radio, so none of the probes below (seven system calls a link).
        // The wwan framework's own links say so in their kind.
        if link.kind == "wwan" { deviceType = "wwan" }
        if link.hardwareType == Netlink.HardwareType.ether, !name.isEmpty, link.kind == nil {
            if let ioctlSocket { isWireless = Syscall.isWireless(name, socket: ioctlSocket) }
            if !foreign && !name.contains("/") && !name.hasPrefix(".") {
                let base = "/sys/class/net/" + name
                isWireless = isWireless || Syscall.exists(base + "/phy80211") || Syscall.exists(base + "/wireless")
                if let uevent = Syscall.readFile(base + "/uevent", limit: 4096) {
                    for line in uevent.split(separator: UInt8(ascii: "\n")) where line.starts(with: Array("DEVTYPE=".utf8)) {
                        deviceType = String(decoding: line.dropFirst(8), as: UTF8.self)
                    }
                }
            }
        }
        return classify(hardwareType: link.hardwareType, kind: link.kind, name: name, isWireless: isWireless, deviceType: deviceType)
    }
}
#endif
