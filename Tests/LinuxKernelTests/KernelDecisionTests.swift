import Foundation
import Testing
import KernelTestSupport
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// SPEC §2.4: every configuration where Linux routing is richer than "a default route in
/// some table", built with `ip` in a namespace of its own. After each change, a running
/// monitor and a fresh one-shot read must say what the kernel says (`ip route get`, read by
/// ``KernelDecision``), not what the test expects; the `#expect`s on the decision itself
/// only check that the test built the configuration it meant to.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct KernelDecisionTests {
    /// A namespace with eth0 (IPv4 and IPv6 default routes in the main table) and a tun
    /// device `name` with carrier and addresses, as a VPN client leaves it before routing.
    func vpnNamespace(_ label: String, tun name: String = "tun0") throws -> (TestNamespace, TunAttachment) {
        let ns = try TestNamespace(label)
        try ns.addLinks("eth0")
        try ns.batch([
            "link set eth0 up", "addr add 10.30.0.2/24 dev eth0", "addr add 2001:db8:30::2/64 dev eth0 nodad",
            "route add default via 10.30.0.1", "route add ::/0 via 2001:db8:30::1",
        ])
        let tun = try attachTun(ns, name)
        try ns.batch(["link set \(name) up", "addr add 10.64.0.2/32 dev \(name)", "addr add fd64::2/128 dev \(name) nodad"])
        return (ns, tun)
    }

    @Test func fullTunnelSelectedByRulesAsWgQuickAndTailscaleDoIt() async throws {
        let (ns, tun) = try vpnNamespace("wgq", tun: "wg0")
        defer { tun.close(); ns.remove() }
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        #expect(try await recorder.expectAgreement(ns).primary == "eth0")
        // wg-quick: a default route in table 51820, chosen for every packet without the
        // tunnel's own fwmark; the main table only for more specific routes.
        try ns.batch([
            "route add default dev wg0 table 51820", "route add ::/0 dev wg0 table 51820",
            "rule add not fwmark 51820 table 51820 pref 32764", "rule add table main suppress_prefixlength 0 pref 32763",
        ])
        try ns.ip("-6 rule add not fwmark 51820 table 51820 pref 32764")
        try ns.ip("-6 rule add table main suppress_prefixlength 0 pref 32763")
        let up = try await recorder.expectAgreement(ns)
        #expect(up.primary == "wg0" && up.supportsIPv4 && up.supportsIPv6)
        // wg-quick down: the rules go, the kernel uses the main table again.
        try ns.batch(["rule del pref 32764", "rule del pref 32763"])
        try ns.ip("-6 rule del pref 32764")
        try ns.ip("-6 rule del pref 32763")
        #expect(try await recorder.expectAgreement(ns).primary == "eth0")
        // Tailscale: table 52, selected by a rule at priority 5270.
        try ns.batch(["route add default dev wg0 table 52", "rule add pref 5270 table 52"])
        #expect(try await recorder.expectAgreement(ns).primary == "wg0")
        // The tunnel loses its carrier (the daemon exits): the kernel still routes into it.
        tun.close()
        let down = try await recorder.expectAgreement(ns)
        #expect(!down.supportsIPv4 && down.supportsIPv6)
    }

    @Test func openVPNHalfRoutesCoverTheInternetWithoutADefault() async throws {
        let (ns, tun) = try vpnNamespace("ovpn")
        defer { tun.close(); ns.remove() }
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        let (vpnOnly, vpnRecorder) = try startMonitor(ns, required: .other)
        defer { vpnOnly.cancel() }
        try await recorder.expectAgreement(ns)
        #expect(await vpnRecorder.wait(seconds: 5) { $0.status != .satisfied && $0.diagnosis == .filtered } != nil)
        try ns.batch(["route add 0.0.0.0/1 dev tun0", "route add 128.0.0.0/1 dev tun0", "route add 2000::/3 dev tun0"])
        let up = try await recorder.expectAgreement(ns)
        #expect(up.primary == "tun0" && up.supportsIPv6)
        // `netpath wait --require other` ("until my VPN is up") now succeeds.
        let vpn = await vpnRecorder.wait(seconds: 5) { $0.status == .satisfied }
        #expect(vpn?.availableInterfaces.map(\.name) == ["tun0"])
        try ns.batch(["route del 0.0.0.0/1", "route del 128.0.0.0/1", "route del 2000::/3"])
        #expect(try await recorder.expectAgreement(ns).primary == "eth0")
        #expect(await vpnRecorder.wait(seconds: 5) { $0.diagnosis == .filtered } != nil)
    }

    @Test func killSwitchesAreBlocked() async throws {
        let (ns, tun) = try vpnNamespace("kill")
        defer { tun.close(); ns.remove() }
        try ns.ip("-6 route del ::/0")
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        try await recorder.expectAgreement(ns)
        // A rule selects a table whose default refuses: prohibit, blackhole, unreachable.
        for type in ["prohibit", "blackhole", "unreachable"] {
            try ns.ip("route replace \(type) default table 100")
            if type == "prohibit" { try ns.ip("rule add pref 100 table 100") }
            let killed = try await recorder.expectAgreement(ns)
            #expect(killed.refuses && recorder.paths.last?.diagnosis == .blocked, "\(type)")
        }
        try ns.ip("rule del pref 100")
        try await recorder.expectAgreement(ns)
        // Rules that refuse outright.
        try ns.ip("rule add pref 100 prohibit")
        #expect(try await recorder.expectAgreement(ns).refuses)
        try ns.ip("rule del pref 100")
        try await recorder.expectAgreement(ns)
        try ns.ip("rule add pref 100 unreachable")
        let unreachable = try await recorder.expectAgreement(ns)
        // The kernel's answer is "network unreachable", as with no route at all: the rule
        // is what makes it a kill switch.
        #expect(unreachable.ipv4 == .refused("Network is unreachable") && recorder.paths.last?.diagnosis == .blocked)
        try ns.ip("rule del pref 100")
        #expect(try await recorder.expectAgreement(ns).primary == "eth0")
    }

    @Test func aTableThatNoRuleUsesIsIgnored() async throws {
        let ns = try TestNamespace("table")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.31.0.2/24 dev eth0", "route add default via 10.31.0.1 table 200"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        #expect(try await recorder.expectAgreement(ns).isSatisfied == false)
        #expect(recorder.paths.last?.diagnosis == .noDefaultRoute)
        try ns.ip("rule add pref 200 table 200")
        #expect(try await recorder.expectAgreement(ns).primary == "eth0")
        try ns.ip("rule del pref 200")
        #expect(try await recorder.expectAgreement(ns).isSatisfied == false)
    }

    @Test func nexthopObjectsGroupsAndTheirSilentDeletion() async throws {
        let ns = try TestNamespace("nhobj")
        defer { ns.remove() }
        // Routes then carry only the nexthop id, as FRR and systemd-networkd use them.
        try run(Kernel.ipPath, ["netns", "exec", ns.name, "sysctl", "-qw", "net.ipv4.nexthop_compat_mode=0"])
        try ns.addLinks("eth0", "eth1")
        try ns.batch([
            "link set eth0 up", "link set eth1 up", "addr add 10.32.0.2/24 dev eth0", "addr add 10.33.0.2/24 dev eth1",
        ])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        try await recorder.expectAgreement(ns)
        try ns.batch([
            "nexthop add id 1 via 10.32.0.1 dev eth0", "nexthop add id 2 via 10.33.0.1 dev eth1",
            "nexthop add id 10 group 1/2", "route add default nhid 10",
        ])
        #expect(try await recorder.expectAgreement(ns).isSatisfied)
        // Deleting a member: the group goes on with the other.
        try ns.ip("nexthop del id 1")
        #expect(try await recorder.expectAgreement(ns).primary == "eth1")
        // Deleting the last member deletes the group and the route, without a route message.
        try ns.ip("nexthop del id 2")
        #expect(try await recorder.expectAgreement(ns).isSatisfied == false)
        #expect(recorder.paths.last?.diagnosis == .noDefaultRoute)
        // A single nexthop object, replaced in place.
        try ns.batch(["nexthop add id 3 via 10.32.0.1 dev eth0", "route add default nhid 3"])
        #expect(try await recorder.expectAgreement(ns).primary == "eth0")
        try ns.ip("nexthop replace id 3 via 10.33.0.1 dev eth1")
        #expect(try await recorder.expectAgreement(ns).primary == "eth1")
    }

    @Test func routesWithTheSameKeyAndDifferentTypes() async throws {
        let ns = try TestNamespace("samek")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.34.0.2/24 dev eth0", "route add default via 10.34.0.1"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        #expect(try await recorder.expectAgreement(ns).isSatisfied)
        // Appended after the unicast route: the kernel keeps using the first.
        try ns.ip("route append blackhole default")
        try await recorder.expectAgreement(ns)
        try ns.ip("route del blackhole default")
        #expect(try await recorder.expectAgreement(ns).isSatisfied)
        // Prepended: the kernel now refuses.
        try ns.ip("route prepend blackhole default")
        #expect(try await recorder.expectAgreement(ns).refuses)
        try ns.ip("route del blackhole default")
        #expect(try await recorder.expectAgreement(ns).isSatisfied)
        try ns.ip("route prepend unreachable default")
        #expect(try await recorder.expectAgreement(ns).refuses)
        try ns.ip("route del unreachable default")
        #expect(try await recorder.expectAgreement(ns).isSatisfied)
        #expect(monitor.currentPath?.summary == "satisfied [eth0:wiredEthernet] gw 10.34.0.1 v4")
    }

    /// An optimistic IPv6 address (`optimistic_dad`) is a source from the moment DAD
    /// starts, but the kernel announces it (`RTM_NEWADDR`) only when DAD ends; its own
    /// local route is the only message before that. DAD is made to last (60 probes, one a
    /// second) so that the test reads the path while it runs.
    @Test func anOptimisticAddressCountsBeforeItsDADEnds() async throws {
        let ns = try TestNamespace("optdad")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try run(Kernel.ipPath, ["netns", "exec", ns.name, "sysctl", "-qw", "net.ipv6.conf.eth0.optimistic_dad=1",
                                "net.ipv6.conf.eth0.dad_transmits=60", "net.ipv6.conf.eth0.accept_ra=0"])
        try ns.batch(["link set eth0 up", "route add ::/0 via fe80::1 dev eth0"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        #expect(try await recorder.expectAgreement(ns).supportsIPv6 == false)
        try ns.ip("addr add 2001:db8:36::2/64 dev eth0 optimistic")
        // Still in DAD: the address is tentative and optimistic, and a socket sends from it.
        #expect(try run(Kernel.ipPath, ["-n", ns.name, "addr", "show", "dev", "eth0"]).contains("optimistic tentative"))
        let decision = try await recorder.expectAgreement(ns)
        #expect(decision.supportsIPv6)
        #expect(recorder.paths.last?.supportsIPv6 == true)
        #expect(try run(Kernel.ipPath, ["-n", ns.name, "addr", "show", "dev", "eth0"]).contains("tentative"))
    }

    @Test func anExpiringRouteStopsCountingWhenTheKernelStopsUsingIt() async throws {
        let ns = try TestNamespace("expire")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 2001:db8:35::2/64 dev eth0 nodad"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        try await recorder.expectAgreement(ns)
        try await recorder.expectExpiryFollowed(ns, gateway: "2001:db8:35::1")
        // Seen at the expiry, not at the deletion: the expired route is still in the table.
        #expect(try run(Kernel.ipPath, ["-n", ns.name, "-6", "route", "show", "default"]).contains("2001:db8:35::1"))
        #expect(try await recorder.expectAgreement(ns).isSatisfied == false)
    }

    /// Messages arriving all through the end of a lifetime (an address added and removed
    /// on another link, every few milliseconds) give the reader turns in its last tick,
    /// when the kernel reports the remaining lifetime as 0: the expiry must still be seen.
    @Test func anExpiryIsSeenWhileOtherMessagesKeepComing() async throws {
        let ns = try TestNamespace("expchurn")
        defer { ns.remove() }
        try ns.addLinks("eth0", "eth1")
        try ns.batch(["link set eth0 up", "link set eth1 up", "addr add 2001:db8:37::2/64 dev eth0 nodad"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        try await recorder.expectAgreement(ns)
        try run(Kernel.ipPath, ["netns", "exec", ns.name, "sysctl", "-qw", "net.ipv6.route.gc_interval=3600"])
        // Two seconds of lifetime, and four of messages, from the moment the route is added.
        let churn = "end=$(($(date +%s) + 4)); while [ $(date +%s) -lt $end ]; do "
            + "ip -n \(ns.name) addr add 10.37.0.1/32 dev eth1; ip -n \(ns.name) addr del 10.37.0.1/32 dev eth1; done"
        let before = recorder.paths.count
        try ns.ip("-6 route add default via 2001:db8:37::1 dev eth0 expires 2")
        let messages = Task.detached { try run("/bin/sh", ["-c", churn]) }
        // Counted while it lived: from the paths delivered, not a check against the kernel,
        // which a loaded run (ThreadSanitizer in CI) can make after the two seconds.
        await recorder.expectIPv6Counted(since: before)
        let lost = await recorder.wait(seconds: 20) { !$0.supportsIPv6 }
        _ = try await messages.value
        if lost == nil { Issue.record("IPv6 still counted after the route expired; paths: \(recorder.paths.map(\.summary).suffix(4))") }
        #expect(try await recorder.expectAgreement(ns).supportsIPv6 == false)
    }

    @Test func aRouterAdvertisementFromRadvdRenewsAndExpires() async throws {
        try requireProgram("/usr/sbin/radvd", package: "radvd")
        let ns = try TestNamespace("radvd"), router = try TestNamespace("rtr")
        defer { ns.remove(); router.remove() }
        try ns.ip("link add eth0 type veth peer name lan0 netns \(router.name)")
        try run(Kernel.ipPath, ["netns", "exec", ns.name, "sysctl", "-qw", "net.ipv6.conf.eth0.accept_dad=0"])
        try run(Kernel.ipPath, ["netns", "exec", router.name, "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1"])
        try run(Kernel.ipPath, ["netns", "exec", router.name, "sysctl", "-qw", "net.ipv6.conf.lan0.accept_dad=0"])
        try router.batch(["link set lan0 up", "addr add 2001:db8:36::1/64 dev lan0 nodad"])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("np-radvd-\(ns.name)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
        interface lan0 {
            AdvSendAdvert on; MinRtrAdvInterval 3; MaxRtrAdvInterval 4; AdvDefaultLifetime 5;
            prefix 2001:db8:36::/64 { AdvOnLink on; AdvAutonomous on; };
        };
        """.write(toFile: directory + "/radvd.conf", atomically: true, encoding: .utf8)
        // The kernel's IPv6 route garbage collector held off: only the expiry can change the
        // path (a collection right at the expiry raced the check below under load).
        try run(Kernel.ipPath, ["netns", "exec", ns.name, "sysctl", "-qw", "net.ipv6.route.gc_interval=3600"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        try ns.ip("link set eth0 up")
        let radvd = try Child(Kernel.ipPath, ["netns", "exec", router.name, "/usr/sbin/radvd", "--nodaemon",
                                              "--config", directory + "/radvd.conf", "--pidfile", directory + "/radvd.pid",
                                              "--logmethod", "stderr"])
        defer { radvd.kill() }
        // SLAAC gives an address, the advertisement a default route with a 5 s lifetime.
        #expect(await recorder.wait(seconds: 15) { $0.supportsIPv6 } != nil)
        #expect(try await recorder.expectAgreement(ns).supportsIPv6)
        // Advertisements every 3–4 s renew the lifetime without a message: the monitor,
        // woken at the old expiry, must learn the new one and stay satisfied.
        #expect(await recorder.wait(seconds: 8) { !$0.supportsIPv6 } == nil)
        // The router dies without withdrawing the route: it expires at most 5 s later.
        radvd.signal(SIGKILL)
        #expect(await recorder.wait(seconds: 20) { !$0.supportsIPv6 } != nil)
        // At the expiry, not at the deletion: the expired route is still in the table.
        #expect(try run(Kernel.ipPath, ["-n", ns.name, "-6", "route", "show", "default"]).contains("fe80::"))
        #expect(try await recorder.expectAgreement(ns).supportsIPv6 == false)
    }

    @Test func aRouteThroughALinkWithoutCarrierThatTheKernelStillUses() async throws {
        let ns = try TestNamespace("lkdown")
        defer { ns.remove() }
        try ns.addLinks("eth0", "eth1")
        try ns.batch([
            "link set eth0 up", "link set eth1 up", "addr add 10.37.0.2/24 dev eth0", "addr add 10.38.0.2/24 dev eth1",
            "route add default via 10.37.0.1 metric 100", "route add default via 10.38.0.1 metric 200",
        ])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        #expect(try await recorder.expectAgreement(ns).primary == "eth0")
        // eth0 loses carrier: its route stays (linkdown) and the kernel keeps choosing it.
        try run(Kernel.ipPath, ["-n", ns.name + "p", "link", "set", "p-eth0", "down"])
        let down = try await recorder.expectAgreement(ns)
        #expect(down.ipv4 == .route(device: "eth0", gateway: "10.37.0.1", source: "10.37.0.2") && !down.isSatisfied)
        #expect(recorder.paths.last?.diagnosis == .noCarrier)
        // Told to ignore linkdown routes, the kernel uses eth1 (a sysctl sends no message the
        // monitor hears: the next carrier change makes it ask again).
        try run(Kernel.ipPath, ["netns", "exec", ns.name, "sysctl", "-qw", "net.ipv4.conf.all.ignore_routes_with_linkdown=1"])
        try run(Kernel.ipPath, ["-n", ns.name + "p", "link", "set", "p-eth0", "up"])
        #expect(try await recorder.expectAgreement(ns).primary == "eth0")
        try run(Kernel.ipPath, ["-n", ns.name + "p", "link", "set", "p-eth0", "down"])
        #expect(try await recorder.expectAgreement(ns).primary == "eth1")
    }

    @Test func unnumberedLinksAndSourcesOnAnotherInterface() async throws {
        let ns = try TestNamespace("unnum")
        defer { ns.remove() }
        try ns.addLinks("wan0", "lan0")
        try ns.batch(["link set wan0 up", "link set lan0 up", "addr add 192.0.2.77/32 dev lo"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        try await recorder.expectAgreement(ns)
        // An unnumbered point-to-point uplink: the global address sits on loopback.
        try ns.ip("route add default via 10.39.0.1 dev wan0 onlink")
        let unnumbered = try await recorder.expectAgreement(ns)
        #expect(unnumbered.ipv4 == .route(device: "wan0", gateway: "10.39.0.1", source: "192.0.2.77"))
        // A router: only link-local on the WAN side, the global IPv6 address on the LAN side.
        try ns.batch(["addr add 2001:db8:39::1/64 dev lan0 nodad", "route add ::/0 via fe80::1 dev wan0"])
        let router = try await recorder.expectAgreement(ns)
        #expect(router.supportsIPv6 && router.gateways == ["10.39.0.1", "fe80::1"])
    }
}
