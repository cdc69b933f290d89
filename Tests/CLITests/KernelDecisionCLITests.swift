import Foundation
import KernelTestSupport
import NetPath
import NetPathSystem
import Testing

/// The real binary against the kernel's own decision (SPEC §2.4, §2.6): a running `watch`
/// and a fresh `status` must say what `ip route get` says, before and after each change.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct KernelDecisionCLITests {
    /// Reads `watch` lines until one agrees with the kernel (read again while it settles);
    /// then a fresh `status --json` must agree too.
    @discardableResult
    func expectAgreement(_ tool: RunningTool, _ ns: TestNamespace, sourceLocation: SourceLocation = #_sourceLocation) throws -> KernelDecision {
        let deadline = Date().addingTimeInterval(10)
        var decision = try KernelDecision.read(ns.name)
        var last = "-"
        while Date() < deadline {
            if let line = tool.nextLine(seconds: 0.5) {
                last = line
            }
            decision = try KernelDecision.read(ns.name)
            if let path = try? NetworkPath(jsonLine: last), decision.agrees(with: path) { break }
        }
        let watched = try? NetworkPath(jsonLine: last)
        #expect(watched.map(decision.agrees(with:)) == true, "watch: \(last); \(decision)", sourceLocation: sourceLocation)
        let status = try #require(try netpath("status", "--json", "--netns", ns.name), sourceLocation: sourceLocation)
        let fresh = try NetworkPath(jsonLine: status.lines.first ?? "")
        #expect(decision.agrees(with: fresh), "status: \(status.standardOutput); \(decision)", sourceLocation: sourceLocation)
        #expect(status.status == (decision.isSatisfied ? 0 : 1), sourceLocation: sourceLocation)
        return decision
    }

    @Test func watchAndStatusFollowAVPNItsKillSwitchAndItsEnd() throws {
        let ns = try TestNamespace("clivpn")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.50.0.2/24 dev eth0", "route add default via 10.50.0.1"])
        let tun = try attachTun(ns, "wg0")
        defer { tun.close() }
        try ns.batch(["link set wg0 up", "addr add 10.64.0.2/32 dev wg0"])
        let tool = try RunningTool(["watch", "--json", "--netns", ns.name])
        defer { tool.signal(SIGTERM); _ = tool.finish() }
        #expect(try expectAgreement(tool, ns).primary == "eth0")
        try ns.batch([
            "route add default dev wg0 table 51820",
            "rule add not fwmark 51820 table 51820 pref 32764", "rule add table main suppress_prefixlength 0 pref 32763",
        ])
        #expect(try expectAgreement(tool, ns).primary == "wg0")
        // `netpath wait --require other`: the VPN is up.
        #expect(try netpath("wait", "--require", "other", "--netns", ns.name, "--timeout", "5")?.status == 0)
        // The kill switch of a VPN client whose tunnel is down.
        try ns.batch(["route replace prohibit default table 51820"])
        #expect(try expectAgreement(tool, ns).refuses)
        let blocked = try #require(try netpath("status", "--netns", ns.name))
        #expect(blocked.status == 1 && blocked.standardOutput.contains("offline"))
        try ns.batch(["rule del pref 32764", "rule del pref 32763"])
        #expect(try expectAgreement(tool, ns).primary == "eth0")
    }

    /// Docker and `ip netns exec` bind-mount a file over /etc/resolv.conf; dhclient-script
    /// then rewrites it in place, which a watch of /etc cannot see.
    @Test func aBindMountedResolvConfRewrittenInPlace() throws {
        let ns = try TestNamespace("clibind")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.51.0.2/24 dev eth0", "route add default via 10.51.0.1"])
        let source = ns.resolverDirectory + "/resolv.conf"
        func rewriteInPlace(_ text: String) throws {
            let handle = try #require(FileHandle(forWritingAtPath: source))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        }
        func dns(_ line: String?) -> Bool? { (try? jsonObject(line ?? ""))?["supportsDNS"] as? Bool }
        // `ip netns exec` bind-mounts /etc/netns/NAME/resolv.conf over /etc/resolv.conf in a
        // mount namespace of its own; and a mount made with `unshare -m`, as a container's.
        let runs: [(String, [String])] = [
            (Kernel.ipPath, ["netns", "exec", ns.name, netpathBinary, "watch", "--json"]),
            ("/usr/bin/unshare", ["--mount", "--propagation", "private", "sh", "-c",
                                  "mount --bind \"$0\" /etc/resolv.conf && exec nsenter --net=/run/netns/\"$1\" \"$2\" watch --json",
                                  source, ns.name, netpathBinary]),
        ]
        for (program, arguments) in runs {
            try rewriteInPlace("# no servers\n")
            let tool = try RunningTool(arguments, executable: program)
            defer { tool.signal(SIGTERM); _ = tool.finish() }
            var line = tool.nextLine()
            #expect(dns(line) == false, "\(line ?? "no line")")
            try rewriteInPlace("nameserver 192.0.2.53\n")
            line = tool.nextLine()
            #expect(dns(line) == true, "\(program): \(line ?? "no line")")
            try rewriteInPlace("# servers gone\n")
            line = tool.nextLine()
            #expect(dns(line) == false, "\(program): \(line ?? "no line")")
        }
    }

    /// Issue 18: a `uidrange` kill switch for the user NetPath runs as is `blocked` for that
    /// user, and nothing for another; `wait` sees a source-specific IPv6 default.
    @Test func aUidrangeKillSwitchAndASourceSpecificDefault() throws {
        let ns = try TestNamespace("cliuid")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.52.0.2/24 dev eth0", "route add default via 10.52.0.1",
                      "rule add pref 100 uidrange 1000-1000 unreachable"])
        func status(asUser uid: Int) throws -> Outcome? {
            try RunningTool(["netns", "exec", ns.name, "setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups",
                             netpathBinary, "status", "--json"], executable: Kernel.ipPath).finish(seconds: 15)
        }
        let user = try #require(try status(asUser: 1000))
        #expect(user.status == 1, "\(user.standardError)")
        #expect(try NetworkPath(jsonLine: user.lines.first ?? "").diagnosis == .blocked, "\(user.standardOutput)")
        let other = try #require(try status(asUser: 1001))
        let otherPath = try NetworkPath(jsonLine: other.lines.first ?? "")
        #expect(other.status == 0 && otherPath.status == .satisfied, "\(other.standardOutput)")
        // An IPv6-only path through a source-specific default: `wait` succeeds at once.
        try ns.batch(["route del default", "addr add 2001:db8:52::2/64 dev eth0 nodad"])
        try ns.ip("-6 route add default from 2001:db8:52::/64 via 2001:db8:52::1 dev eth0")
        #expect(try netpath("wait", "--netns", ns.name, "--timeout", "5")?.status == 0)
    }
}
