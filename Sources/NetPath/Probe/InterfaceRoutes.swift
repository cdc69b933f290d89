#if os(Linux) || os(Android)
/// What one interface can reach, as the kernel tells a socket bound to it: for each family,
/// a UDP socket bound to the device (`SO_BINDTODEVICE`, as the check's sockets are) is
/// connected to the Internet destination the monitor asks about (SPEC §2.1; no packet is
/// sent), as a filtered monitor's question sockets are (SPEC §2.5), and the kernel's routing
/// table is asked which entry that socket's flow matches (`RTM_GETROUTE` with
/// `RTM_F_FIB_MATCH`, the interface and the source: `ip route get fibmatch … oif NAME from
/// SRC`). A family whose connect fails, leaves no source address of ours, or matches no
/// entry is not checked over that interface: an IPv4 socket bound to a device connects
/// even where no route leads through it (the kernel then takes every destination for
/// on-link), and a check would only ask the LAN for the Internet's addresses.
struct InterfaceRoutes: Sendable {
    /// The interface (its type is not read: binding needs only the name and index).
    let interface: NetworkInterface
    let ipv4: Bool
    let ipv6: Bool

    /// Asks the kernel about `name`, in `namespace` (on a short-lived thread inside it) or
    /// in the caller's own.
    ///
    /// - Throws: ``NetPathError``: `interfaceNotFound` when no interface has that name,
    ///   `interfaceNotRouted` when it routes neither family to the Internet (down, no
    ///   address, no route through it); the namespace's errors.
    static func ask(_ name: String, namespace: NetworkNamespace?) throws -> InterfaceRoutes {
        guard let namespace else { return try ask(name) }
        return try namespace.runInside(threadName: "netpath-iface") { try ask(name) }
    }

    private static func ask(_ name: String) throws -> InterfaceRoutes {
        // IFNAMSIZ is 16 with the NUL: a longer name is no interface's.
        guard !name.isEmpty, name.utf8.count < 16, !name.utf8.contains(0), let index = Syscall.interfaceIndex(name) else {
            throw NetPathError(.interfaceNotFound, "no interface named '\(name)'")
        }
        let routes = InterfaceRoutes(interface: NetworkInterface(name: name, index: index, type: .other),
                                     ipv4: routes(name, family: IPAddress.inet), ipv6: routes(name, family: IPAddress.inet6))
        guard routes.ipv4 || routes.ipv6 else {
            throw NetPathError(.interfaceNotRouted, "interface '\(name)' is not up or has no route to the Internet")
        }
        return routes
    }

    /// Whether a socket of `family` bound to `name` connects to the Internet destination
    /// with a source address.
    private static func routes(_ name: String, family: UInt8) -> Bool {
        guard case .success(let descriptor) = Syscall.socket(family == IPAddress.inet ? .ipv4 : .ipv6, .datagram) else { return false }
        defer { Syscall.close(descriptor) }
        guard case .success = Syscall.bind(descriptor, toDevice: name) else { return false }
        let destination = SocketAddress(Netlink.internetDestination(family: family), port: Netlink.questionPort)
        guard case .success = Syscall.connect(descriptor, to: destination),
              case .success(let local) = Syscall.localAddress(descriptor), let source = local.address,
              !source.isUnspecified, let index = Syscall.interfaceIndex(name) else { return false }
        return tableHasEntry(family: family, interfaceIndex: Int32(index), source: source)
    }

    /// Whether the routing table holds an entry for the flow to the Internet destination out
    /// of interface `interfaceIndex` from `source`: the kernel answers a fib-match lookup
    /// with the entry (`RTM_NEWROUTE`), or with an error when only the on-link fallback
    /// would carry it.
    private static func tableHasEntry(family: UInt8, interfaceIndex: Int32, source: IPAddress) -> Bool {
        guard case .success(let netlink) = Syscall.socket(.netlink, .raw, .netlinkRoute) else { return false }
        defer { Syscall.close(netlink) }
        // The kernel answers within the send; the bound only guards against a kernel that
        // never does.
        Syscall.setReceiveTimeout(netlink, .seconds(1))
        let lookup = RouteLookup(family: family, interfaceIndex: interfaceIndex, tableEntry: true)
        guard case .success = Syscall.sendToKernel(netlink, NetlinkRequest.encode(lookups: [(1, lookup, true, source)])) else { return false }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 8192, alignment: 8)
        defer { buffer.deallocate() }
        guard case .success(let count) = Syscall.receive(netlink, into: buffer) else { return false }
        var found = false
        NetlinkParser.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { envelope in
            if envelope.sequence == 1, envelope.type == Netlink.MessageType.newRoute { found = true }
        }
        return found
    }
}
#endif
