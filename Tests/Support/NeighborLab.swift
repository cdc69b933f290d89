import Foundation

/// A client namespace whose default gateway, 192.0.2.1, is a router namespace on the other
/// end of a veth (`c0` ↔ `r0`); the client's solicitations are retried every 100 ms, so an
/// unanswered gateway's entry goes `FAILED` within half a second.
public final class GatewayLab: Sendable {
    public let client: TestNamespace
    public let router: TestNamespace

    public init(_ label: String) throws {
        client = try TestNamespace(label + "c")
        router = try TestNamespace(label + "r")
        do {
            try client.ip("link add c0 type veth peer name r0 netns \(router.name)")
            try router.batch(["link set r0 up", "addr add 192.0.2.1/24 dev r0"])
            try client.batch(["link set c0 up", "addr add 192.0.2.2/24 dev c0", "route add default via 192.0.2.1"])
            try client.sysctl("net.ipv4.neigh.c0.retrans_time_ms=100")
        } catch {
            remove()
            throw error
        }
    }

    public func remove() {
        client.remove()
        router.remove()
    }
}

/// What `ip -j neigh` says of one entry: the truth the neighbor tests compare with.
public struct KernelNeighbor: Sendable {
    public var states: [String]
    public var lladdr: String?

    /// The link-layer address as bytes (`36:ea:41:06:69:35`).
    public var lladdrBytes: [UInt8]? {
        lladdr.map { $0.split(separator: ":").compactMap { UInt8($0, radix: 16) } }
    }
}

extension TestNamespace {
    /// Sends one UDP datagram to the Internet (198.51.100.1, or an IPv6 `address`) from the
    /// namespace: traffic through the default gateway, which makes the kernel resolve it (ARP,
    /// neighbor discovery).
    public func sendTraffic(to address: String = "198.51.100.1") throws {
        let python = try requireProgram("/usr/bin/python3", package: "python3")
        let family = address.contains(":") ? "AF_INET6" : "AF_INET"
        try run(Kernel.ipPath, ["netns", "exec", name, python, "-c",
                                "import socket; socket.socket(socket.\(family), socket.SOCK_DGRAM).sendto(b'x', ('\(address)', 9))"])
    }

    /// `sysctl -w SETTING` inside the namespace.
    public func sysctl(_ setting: String) throws {
        try run(Kernel.ipPath, ["netns", "exec", name, "sysctl", "-qw", setting])
    }

    /// The kernel's neighbor entry for `address` (`ip -j neigh show ADDRESS`), `nil` when it
    /// has none.
    public func neighbor(_ address: String) throws -> KernelNeighbor? {
        let output = try run(Kernel.ipPath, ["-j", "-n", name, "neigh", "show", address])
        guard let entries = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]],
              let entry = entries.first else { return nil }
        return KernelNeighbor(states: entry["state"] as? [String] ?? [], lladdr: entry["lladdr"] as? String)
    }
}
