import Foundation
import Synchronization
import NetPath
import NetPathSystem

/// A real IPv6-only network with NAT64 and DNS64 (issue 20), built by `nat64-lab.sh` in
/// three namespaces:
/// - the client (``clientName``): IPv6 only, ``clientIPv6`` with a default route via the
///   router, no IPv4 address or route at all; its resolver file names ``routerIPv6``;
/// - the router (``routerName``): tayga translating ``prefix`` to IPv4, and unbound on
///   ``routerIPv6`` as a DNS64 resolver with the same prefix;
/// - the server (``serverName``): IPv4 only, ``serverIPv4``, running the test HTTP server
///   (probe_server.py, ports 80 and 8080, mode `online`).
///
/// The resolver's names have A records only (`check.test`, `portal.test`, the default
/// connectivity-check hosts: ``serverIPv4``; `ipv4only.arpa`: 192.0.0.170 and .171), so
/// their AAAA records are synthesized from ``prefix``; any other name is NXDOMAIN. With
/// `nat64: false` there is neither tayga nor DNS64: IPv4 has no way out of the client.
/// ``remove()`` stops everything and deletes the namespaces (call it in `defer`).
public final class NAT64Lab: Sendable {
    public let name: String
    public let clientName: String
    public let routerName: String
    public let serverName: String
    /// The NAT64 prefix, as given (normalized), such as `64:ff9b::/96`.
    public let prefix: String
    public let nat64: Bool
    public let clientIPv6: String
    /// The router's address on the client's link: the client's gateway and DNS server.
    public let routerIPv6: String
    public let serverIPv4: String
    /// ``serverIPv4`` embedded in ``prefix`` (RFC 6052), as the client reaches it through
    /// NAT64; `nil` without NAT64.
    public let serverIPv6: String?

    public var clientNamespace: NetworkNamespace { .named(clientName) }
    /// The client's resolver file (`ip netns exec` and ``NetworkNamespace/named(_:)`` use it).
    public var clientResolverFile: String { "/etc/netns/\(clientName)/resolv.conf" }

    public static let scriptPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("nat64-lab.sh").path

    /// Whether tayga and unbound are installed (Debian packages `tayga` and `unbound`).
    public static let isAvailable: Bool = ["tayga", "unbound"].allSatisfy { program in
        ["/usr/sbin", "/usr/bin", "/sbin", "/bin"].contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
    }

    private static let counter = Atomic<Int>(0)

    /// Builds the lab and waits (the script gives each daemon 10 s, this at most 60 s in
    /// all) until the client has reached the server through NAT64 and the resolver answers.
    /// Throws with the script's output (the failed step, the daemons' last messages) when
    /// it fails; nothing of the lab is left then.
    /// - Parameters:
    ///   - prefix: the NAT64 prefix: the Well-Known Prefix `64:ff9b::/96` or a network-specific
    ///     one such as `2001:db8:64::/96` (lengths 32, 40, 48, 56, 64 or 96; not within
    ///     2001:db8:6a::/48, the lab's own addresses).
    ///   - nat64: `false`: no tayga, and a resolver without DNS64.
    public init(prefix: String, nat64: Bool = true) throws {
        let number = NAT64Lab.counter.add(1, ordering: .relaxed).newValue
        let name = "np-n64-\(getpid())-\(number)"
        let output: String
        do {
            output = try NAT64Lab.runScript(["up", name, prefix] + (nat64 ? [] : ["--no-nat64"]), seconds: 60)
        } catch {
            NAT64Lab.down(name)
            throw error
        }
        // "key value" lines, then "ready".
        var values: [String: String] = [:]
        let lines = output.split(separator: "\n")
        for line in lines {
            let words = line.split(separator: " ", maxSplits: 1)
            if words.count == 2 { values[String(words[0])] = String(words[1]) }
        }
        guard lines.last == "ready", let client = values["client"], let router = values["router"], let server = values["server"],
              let clientIPv6 = values["client6"], let routerIPv6 = values["router6"], let serverIPv4 = values["server4"],
              !nat64 || (values["prefix"] != nil && values["server6"] != nil) else {
            NAT64Lab.down(name)
            throw CommandFailure(description: "nat64-lab.sh up \(name) \(prefix): unexpected output: \(output)")
        }
        self.name = name
        self.nat64 = nat64
        self.prefix = values["prefix"] ?? prefix
        clientName = client
        routerName = router
        serverName = server
        self.clientIPv6 = clientIPv6
        self.routerIPv6 = routerIPv6
        self.serverIPv4 = serverIPv4
        serverIPv6 = values["server6"]
    }

    /// The test server's mode file: `online` (as the lab starts) or `portal`.
    public var modeFile: String { "/run/netpath-lab-\(name)/mode" }

    /// `portal` or `online`, as ``ProbeLab/setMode(_:)``.
    public func setMode(_ mode: String) throws {
        try (mode + "\n").write(toFile: modeFile, atomically: true, encoding: .utf8)
    }

    /// Stops the resolver (unbound) only, as a DNS64 server dying mid-way: queries to
    /// ``routerIPv6`` are then refused (ICMPv6 port unreachable), not left unanswered.
    public func stopDNS() throws {
        try NAT64Lab.runScript(["stop-dns", name], seconds: 30)
    }

    /// Starts the resolver again, as it was, and waits until it answers.
    public func startDNS() throws {
        try NAT64Lab.runScript(["start-dns", name], seconds: 30)
    }

    /// Asks the lab's resolver, from the client, for `host`'s records of `type` (`A` or
    /// `AAAA`): its addresses (none when it has no such record). Throws on an error answer
    /// (such as NXDOMAIN) or none.
    public func query(_ host: String, type: String = "AAAA") throws -> [String] {
        try NAT64Lab.runScript(["query", name, host, type], seconds: 30).split(separator: "\n").map(String.init)
    }

    /// Runs a program in the client namespace (`ip netns exec`) and returns its output.
    @discardableResult
    public func runInClient(_ program: String, _ arguments: [String]) throws -> String {
        try run(Kernel.ipPath, ["netns", "exec", clientName, program] + arguments)
    }

    /// Stops the daemons and deletes the namespaces and files; again is harmless.
    public func remove() {
        NAT64Lab.down(name)
    }

    private static func down(_ name: String) {
        _ = try? runScript(["down", name], seconds: 30)
    }

    /// Runs nat64-lab.sh and returns its output (standard error included); throws with it
    /// when it fails or has not ended after `seconds` (it is killed then).
    @discardableResult
    private static func runScript(_ arguments: [String], seconds: Double) throws -> String {
        let child = try Child("/usr/bin/env", ["bash", scriptPath] + arguments, errorsToOutput: true)
        let deadline = Date().addingTimeInterval(seconds)
        let text = String(decoding: child.readToEnd(until: deadline).output, as: UTF8.self)
        let command = "nat64-lab.sh " + arguments.joined(separator: " ")
        guard let status = child.wait(seconds: max(0, deadline.timeIntervalSinceNow)) else {
            child.kill()
            throw CommandFailure(description: "\(command) did not end within \(Int(seconds)) s: \(text)")
        }
        guard status == 0 else {
            throw CommandFailure(description: "\(command) failed (status \(status)): \(text)")
        }
        return text
    }
}
