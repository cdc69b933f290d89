import Foundation
import NetPath
import NetPathSystem

/// Two namespaces joined by a veth link, for the check's resolver (issue 29): `client`
/// (10.78.0.2 and fd78::2, default routes via the server; IPv6 only when asked) and
/// `server`, which holds two DNS servers of dns_server.py — ``liveServer`` (10.78.0.1,
/// fd78::1), answering as the test's rules say, and ``deadServer`` (10.78.0.9, fd78::9),
/// which never answers — and the test HTTP server (probe_server.py) on the live addresses'
/// port 80. Nothing listens on port 81: a connection there is reset. ``remove()`` stops
/// the programs and deletes everything.
public final class ResolverLab: @unchecked Sendable {
    // Set up in init, torn down in remove(); used by one test.
    public let client: TestNamespace
    public let server: TestNamespace
    private let programs = ProbeLab.Programs()

    public static let liveServer = "10.78.0.1"
    public static let liveServer6 = "fd78::1"
    public static let deadServer = "10.78.0.9"
    public static let deadServer6 = "fd78::9"
    public static let dnsScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("dns_server.py").path

    /// - Parameters:
    ///   - rules: dns_server.py's rules for the live server (`--answer`, `--nxdomain`, …).
    ///   - servers: What the client's resolver file names, in order.
    ///   - ipv6Only: The client has no IPv4 address or route.
    ///   - waitOnline: Wait until the client's path is satisfied.
    public init(rules: [String], servers: [String], ipv6Only: Bool = false, waitOnline: Bool = true) throws {
        client = try TestNamespace("dcli")
        server = try TestNamespace("dsrv")
        do {
            try client.ip("link add v0 type veth peer name v1 netns \(server.name)")
            try server.batch(["addr add 10.78.0.1/24 dev v1", "addr add 10.78.0.9/24 dev v1", "addr add fd78::1/64 dev v1 nodad",
                              "addr add fd78::9/64 dev v1 nodad", "link set v1 up"])
            try writeResolver(servers)
            try programs.start([Kernel.ipPath, "netns", "exec", server.name, "/usr/bin/env", "python3", ResolverLab.dnsScript,
                                "--bind", ResolverLab.liveServer, "--bind", ResolverLab.liveServer6] + rules,
                               readyWhenOutputContains: "ready")
            try programs.start([Kernel.ipPath, "netns", "exec", server.name, "/usr/bin/env", "python3", ResolverLab.dnsScript,
                                "--bind", ResolverLab.deadServer, "--bind", ResolverLab.deadServer6, "--silent"],
                               readyWhenOutputContains: "ready")
            try programs.start([Kernel.ipPath, "netns", "exec", server.name, "/usr/bin/env", "python3", ProbeLab.serverScript,
                                "--port", "80", "--bind", ResolverLab.liveServer, "--bind", ResolverLab.liveServer6],
                               readyWhenOutputContains: "ready")
            if waitOnline { try bringUp(ipv6Only: ipv6Only) }
        } catch {
            remove()
            throw error
        }
    }

    /// Gives the client its addresses and default routes, and waits (at most 30 s) until its
    /// path is satisfied.
    public func bringUp(ipv6Only: Bool = false) throws {
        try client.batch((ipv6Only ? [] : ["addr add 10.78.0.2/24 dev v0"]) + ["addr add fd78::2/64 dev v0 nodad", "link set v0 up"])
        if !ipv6Only { try client.ip("route add default via 10.78.0.1") }
        try client.ip("-6 route add default via fd78::1")
        try ProbeLab.waitUntilOnline(client)
    }

    /// Rewrites the client's resolver file, as a DHCP client does (a new file renamed over
    /// the old one).
    public func writeResolver(_ servers: [String]) throws {
        let text = servers.isEmpty ? "# no servers\n" : servers.map { "nameserver \($0)\n" }.joined()
        try text.write(toFile: client.resolverDirectory + "/resolv.conf", atomically: true, encoding: .utf8)
    }

    /// Starts a program in the client's namespace (a web server on this machine), stopped by
    /// ``remove()``.
    public func startInClient(_ command: [String], readyWhenOutputContains marker: String) throws {
        try programs.start([Kernel.ipPath, "netns", "exec", client.name] + command, readyWhenOutputContains: marker)
    }

    /// Starts a program in the server's namespace (another web server), stopped by
    /// ``remove()``.
    public func startInServer(_ command: [String], readyWhenOutputContains marker: String) throws {
        try programs.start([Kernel.ipPath, "netns", "exec", server.name] + command, readyWhenOutputContains: marker)
    }

    public func remove() {
        programs.stopAll()
        client.remove()
        server.remove()
    }
}
