import Foundation
import NetPath
import NetPathSystem

/// A dual-stack router for per-family checks: `client` (10.81.0.2 and fd81::2, default
/// routes via the router) — `router` (forwards both families; dnsmasq on 10.81.0.1 answers
/// `check.test` with 203.0.113.1 and 2001:db8:81::1) — `upstream` (both addresses on its
/// loopback, probe_server.py on port 80). With `forwardsIPv6` false an nftables rule in the
/// router drops every forwarded IPv6 packet, counting them: a router that advertises IPv6
/// and forwards nothing. With `clientIPv6` false the client has no IPv6 address, only a
/// default route via the router's link-local address (Linux would still send from its own
/// link-local address), and an nftables counter in the client counts every IPv6 SYN it sends.
public final class DualStackLab: @unchecked Sendable {
    // Set up in init, torn down in remove(); used by one test.
    public let client: TestNamespace
    public let router: TestNamespace
    public let upstream: TestNamespace
    private let helper = ProbeLab.Programs()

    public static let url = "http://check.test/204"

    public init(forwardsIPv6: Bool, clientIPv6: Bool = true) throws {
        try requireProgram(ProbeLab.dnsmasqPath, package: "dnsmasq-base")
        client = try TestNamespace("dcli")
        router = try TestNamespace("drtr")
        upstream = try TestNamespace("dup")
        do {
            try client.ip("link add v0 type veth peer name r0 netns \(router.name)")
            try router.ip("link add u0 type veth peer name w0 netns \(upstream.name)")
            try router.batch(["addr add 10.81.0.1/24 dev r0", "addr add fd81::1/64 dev r0 nodad", "addr add fe80::1/64 dev r0 nodad",
                              "link set r0 up", "addr add 10.82.0.1/24 dev u0", "addr add fd82::1/64 dev u0 nodad", "link set u0 up",
                              "route add default via 10.82.0.2", "route add default via fd82::2"])
            try upstream.batch(["addr add 10.82.0.2/24 dev w0", "addr add fd82::2/64 dev w0 nodad", "link set w0 up",
                                "addr add 203.0.113.1/32 dev lo", "addr add 2001:db8:81::1/128 dev lo",
                                "route add default via 10.82.0.1", "route add default via fd82::1"])
            try client.batch(["addr add 10.81.0.2/24 dev v0", "link set v0 up", "route add default via 10.81.0.1"])
            if clientIPv6 {
                try client.batch(["addr add fd81::2/64 dev v0 nodad", "route add default via fd81::1"])
            } else {
                try client.ip("route add default via fe80::1 dev v0")
            }
            try "nameserver 10.81.0.1\n".write(toFile: client.resolverDirectory + "/resolv.conf", atomically: true, encoding: .utf8)
            try run(Kernel.ipPath, ["netns", "exec", router.name, "sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1"])
            if !forwardsIPv6 {
                try RouterLab.nft(in: router, "table inet netpath_lab { chain forward { type filter hook forward priority 0; "
                                  + "meta nfproto ipv6 counter drop; }; }")
            }
            try RouterLab.nft(in: client, "table inet netpath_count { chain out { type filter hook output priority 0; "
                              + "meta nfproto ipv6 tcp flags & (syn | ack) == syn counter; }; }")
            try helper.start([Kernel.ipPath, "netns", "exec", upstream.name, "/usr/bin/env", "python3", ProbeLab.serverScript,
                              "--port", "80", "--bind", "203.0.113.1", "--bind", "2001:db8:81::1"], readyWhenOutputContains: "ready")
            try helper.start([Kernel.ipPath, "netns", "exec", router.name, ProbeLab.dnsmasqPath, "--no-daemon", "--no-resolv", "--no-hosts",
                              "--bind-interfaces", "--listen-address=10.81.0.1", "--user=root", "--pid-file", "--log-facility=-",
                              "--address=/check.test/203.0.113.1", "--address=/check.test/2001:db8:81::1"],
                             readyWhenOutputContains: "started")
            try ProbeLab.waitUntilOnline(client)
        } catch {
            remove()
            throw error
        }
    }

    /// Whether `curl -4` or `curl -6` (run in the client) gets the endpoint's 204: the truth
    /// for that family.
    public func curlPasses(_ family: IPFamily, url: String = DualStackLab.url, interface: String? = nil) -> Bool {
        let arguments = ["netns", "exec", client.name, "curl", family == .ipv4 ? "-4" : "-6", "-s", "-o", "/dev/null",
                         "-w", "%{http_code}", "--max-time", "3"] + (interface.map { ["--interface", $0] } ?? []) + [url]
        return (try? run(Kernel.ipPath, arguments)) == "204"
    }

    /// What `curl -4`/`curl -6` (run in the client) makes of `url`: the HTTP status it got
    /// (`000` for none) and its exit code (6: the name did not resolve), as `"500 0"`.
    public func curlOutcome(_ family: IPFamily, url: String) throws -> String {
        let command = "curl \(family == .ipv4 ? "-4" : "-6") -s -o /dev/null -w '%{http_code}' --max-time 3 '\(url)'; echo \" $?\""
        return try run(Kernel.ipPath, ["netns", "exec", client.name, "sh", "-c", command])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The packets an nftables table's `counter` rules counted in `namespace`, summed.
    public static func counted(in namespace: TestNamespace, table: String) throws -> Int {
        let script = """
            import ctypes, sys
            lib = ctypes.CDLL("libnftables.so.1")
            lib.nft_ctx_new.restype = ctypes.c_void_p
            for name in ("nft_ctx_buffer_output", "nft_ctx_buffer_error"):
                getattr(lib, name).argtypes = [ctypes.c_void_p]
            lib.nft_ctx_get_output_buffer.argtypes = [ctypes.c_void_p]
            lib.nft_ctx_get_output_buffer.restype = ctypes.c_char_p
            lib.nft_run_cmd_from_buffer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
            ctx = lib.nft_ctx_new(0)
            lib.nft_ctx_buffer_output(ctx)
            lib.nft_ctx_buffer_error(ctx)
            if lib.nft_run_cmd_from_buffer(ctx, sys.argv[1].encode()) != 0:
                sys.exit("nft failed")
            print(lib.nft_ctx_get_output_buffer(ctx).decode())
            """
        let listing = try run(Kernel.ipPath, ["netns", "exec", namespace.name, "/usr/bin/env", "python3", "-c", script, "list table inet \(table)"])
        return listing.components(separatedBy: "packets ").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }.reduce(0, +)
    }

    public func remove() {
        helper.stopAll()
        client.remove()
        router.remove()
        upstream.remove()
    }
}
