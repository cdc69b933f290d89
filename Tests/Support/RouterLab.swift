import Foundation
import NetPath
import NetPathSystem

/// Three namespaces in a line, for a router whose uplink is down: `client` (10.79.0.2,
/// default route via the router, resolver file naming it) — `router` (10.79.0.1; 10.80.0.1
/// towards the upstream; forwards; dnsmasq answering `check.test` with 203.0.113.1) —
/// `upstream` (10.80.0.2, and 203.0.113.1 on its loopback, where probe_server.py listens on
/// port 80). Traffic from the client leaves it: the router decides, as a home router does.
/// ``remove()`` stops the programs and deletes everything.
public final class RouterLab: @unchecked Sendable {
    /// What the router does with traffic for the Internet.
    public enum Uplink: String, Sendable {
        /// Forwarded to the upstream: the Internet answers.
        case up
        /// An `unreachable` default route: the router answers ICMP host unreachable.
        case unreachableRoute
        /// No route at all: the router answers ICMP net unreachable.
        case noRoute
        /// Forwarded, but an nftables rule rejects it with ICMP net unreachable.
        case rejected
        /// Forwarded, but nftables resets the client's connections to ports 80 and 443: HTTP
        /// and HTTPS leave only through a proxy (``ProxyLab``); port 8080 is let through.
        case httpBlocked
    }

    // Set up in init, torn down in remove(); used by one test.
    public let client: TestNamespace
    public let router: TestNamespace
    public let upstream: TestNamespace
    private let helper: ProbeLab.Programs

    public static let endpointAddress = "203.0.113.1"

    /// - Parameters:
    ///   - uplink: What the router does with traffic for the Internet.
    ///   - names: More names the router's DNS answers, with their addresses.
    public init(uplink: Uplink, names: [String: String] = [:]) throws {
        try requireProgram(ProbeLab.dnsmasqPath, package: "dnsmasq-base")
        client = try TestNamespace("rcli")
        router = try TestNamespace("rrtr")
        upstream = try TestNamespace("rup")
        helper = ProbeLab.Programs()
        do {
            try client.ip("link add v0 type veth peer name r0 netns \(router.name)")
            try router.ip("link add u0 type veth peer name w0 netns \(upstream.name)")
            try router.batch(["addr add 10.79.0.1/24 dev r0", "link set r0 up", "addr add 10.80.0.1/24 dev u0", "link set u0 up"])
            try upstream.batch(["addr add 10.80.0.2/24 dev w0", "link set w0 up", "addr add \(RouterLab.endpointAddress)/32 dev lo",
                                "route add default via 10.80.0.1"])
            try client.batch(["addr add 10.79.0.2/24 dev v0", "link set v0 up"])
            try client.ip("route add default via 10.79.0.1")
            try "nameserver 10.79.0.1\n".write(toFile: client.resolverDirectory + "/resolv.conf", atomically: true, encoding: .utf8)
            // Forwarding on; ICMP errors not rate-limited, so every connection gets its answer.
            try run(Kernel.ipPath, ["netns", "exec", router.name, "sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv4.icmp_ratelimit=0"])
            switch uplink {
            case .up: try router.ip("route add default via 10.80.0.2")
            case .unreachableRoute: try router.ip("route add unreachable default")
            case .noRoute: break
            case .rejected:
                try router.ip("route add default via 10.80.0.2")
                try RouterLab.nft(in: router, "table inet netpath_lab { chain forward { type filter hook forward priority 0; "
                                  + "oifname \"u0\" reject with icmp type net-unreachable; }; }")
            case .httpBlocked:
                try router.ip("route add default via 10.80.0.2")
                try RouterLab.nft(in: router, "table inet netpath_lab { chain forward { type filter hook forward priority 0; "
                                  + "iifname \"r0\" tcp dport { 80, 443 } reject with tcp reset; }; }")
            }
            try helper.start([Kernel.ipPath, "netns", "exec", upstream.name, "/usr/bin/env", "python3", ProbeLab.serverScript,
                              "--port", "80", "--port", "8080", "--bind", RouterLab.endpointAddress], readyWhenOutputContains: "ready")
            try helper.start([Kernel.ipPath, "netns", "exec", router.name, ProbeLab.dnsmasqPath, "--no-daemon", "--no-resolv", "--no-hosts",
                              "--bind-interfaces", "--listen-address=10.79.0.1", "--user=root", "--pid-file", "--log-facility=-",
                              "--address=/check.test/\(RouterLab.endpointAddress)"] + names.sorted { $0.key < $1.key }.map { "--address=/\($0.key)/\($0.value)" },
                             readyWhenOutputContains: "started")
            try ProbeLab.waitUntilOnline(client)
        } catch {
            remove()
            throw error
        }
    }

    /// Applies an nftables ruleset in `namespace` through libnftables (the library the
    /// `nft` tool is a front end of; the tool itself is not always installed).
    public static func nft(in namespace: TestNamespace, _ ruleset: String) throws {
        let script = """
            import ctypes, sys
            lib = ctypes.CDLL("libnftables.so.1")
            lib.nft_ctx_new.restype = ctypes.c_void_p
            lib.nft_ctx_buffer_error.argtypes = [ctypes.c_void_p]
            lib.nft_ctx_get_error_buffer.argtypes = [ctypes.c_void_p]
            lib.nft_ctx_get_error_buffer.restype = ctypes.c_char_p
            lib.nft_run_cmd_from_buffer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
            ctx = lib.nft_ctx_new(0)
            lib.nft_ctx_buffer_error(ctx)
            if lib.nft_run_cmd_from_buffer(ctx, sys.argv[1].encode()) != 0:
                sys.exit("nft: " + lib.nft_ctx_get_error_buffer(ctx).decode())
            """
        try run(Kernel.ipPath, ["netns", "exec", namespace.name, "/usr/bin/env", "python3", "-c", script, ruleset])
    }

    public func remove() {
        helper.stopAll()
        client.remove()
        router.remove()
        upstream.remove()
    }
}
