#if os(Linux) || os(Android)
/// What one interface can reach, as the kernel tells a socket bound to it: for each family,
/// a UDP socket bound to the device (`SO_BINDTODEVICE`, as the check's sockets are) is
/// connected to the Internet destination the monitor asks about (SPEC §2.1; no packet is
/// sent), as a filtered monitor's question sockets are (SPEC §2.5). A family whose connect
/// fails, or leaves no source address of ours, is not checked over that interface.
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
              case .success(let local) = Syscall.localAddress(descriptor), let source = local.address else { return false }
        return !source.isUnspecified
    }
}
#endif
