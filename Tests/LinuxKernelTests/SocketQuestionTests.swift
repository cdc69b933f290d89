import Foundation
import Testing
import KernelTestSupport
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// Issue 18: configurations where an app's socket gets another answer than a source-less
/// route lookup (SPEC §2.1, 2.3–2.5, 2.8, 2.9). Each checks a running monitor and a fresh
/// status against ``KernelDecision``: a UDP `connect()` made in the namespace, then
/// `ip route get DEST from SRC`.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct SocketQuestionTests {
    /// A namespace with eth0 carrying 10.N.0.2/24 and 2001:db8:N::2/64 and both families'
    /// default routes via .1 and ::1.
    func dualStack(_ label: String, _ number: Int) throws -> TestNamespace {
        let ns = try TestNamespace(label)
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.\(number).0.2/24 dev eth0", "route add default via 10.\(number).0.1",
                      "addr add 2001:db8:\(number)::2/64 dev eth0 nodad", "route add ::/0 via 2001:db8:\(number)::1"])
        return ns
    }

    @Test func sourceSpecificIPv6DefaultOnAnIPv6OnlyHost() async throws {
        let ns = try TestNamespace("srcv6")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 2001:db8:41::2/64 dev eth0 nodad"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        #expect(try await recorder.expectAgreement(ns).isSatisfied == false)
        // OpenWrt and homenet routers: the default holds only for sources in the prefix.
        try ns.ip("-6 route add default from 2001:db8:41::/64 via 2001:db8:41::1 dev eth0")
        let decision = try await recorder.expectAgreement(ns)
        #expect(decision.supportsIPv6 && recorder.paths.last?.supportsIPv6 == true && recorder.paths.last?.status == .satisfied)
        try ns.ip("-6 route del default from 2001:db8:41::/64 via 2001:db8:41::1 dev eth0")
        #expect(try await recorder.expectAgreement(ns).isSatisfied == false)
    }

    /// Each question asks on a disconnected socket: one still connected from the last
    /// question would keep its source, and here the new source's rule says the opposite.
    @Test func eachQuestionGetsTheSourceAnAppsNewSocketGets() async throws {
        let ns = try TestNamespace("fresh")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 192.0.2.2/24 dev eth0", "addr add 192.0.2.3/24 dev eth0",
                      "route add default via 192.0.2.1 src 192.0.2.2",
                      "route add unreachable default table 200", "rule add from 192.0.2.3 lookup 200"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        #expect(try await recorder.expectAgreement(ns).isSatisfied)
        // A new socket now gets 192.0.2.3, which the rule sends to an unreachable table.
        try ns.ip("route replace default via 192.0.2.1 src 192.0.2.3")
        #expect(try await recorder.expectAgreement(ns).isSatisfied == false)
        try ns.ip("route replace default via 192.0.2.1 src 192.0.2.2")
        #expect(try await recorder.expectAgreement(ns).isSatisfied)
    }

    @Test func ipv6FromRuleOnADualStackHost() async throws {
        let ns = try TestNamespace("rulev6")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.42.0.2/24 dev eth0", "route add default via 10.42.0.1",
                      "addr add 2001:db8:42::2/64 dev eth0 nodad"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        #expect(try await recorder.expectAgreement(ns).supportsIPv6 == false)
        // One table per uplink: the IPv6 default only in table 100, chosen by the source.
        try ns.ip("-6 route add default via 2001:db8:42::1 dev eth0 table 100")
        try ns.ip("-6 rule add from 2001:db8:42::2 lookup 100")
        let decision = try await recorder.expectAgreement(ns)
        #expect(decision.supportsIPv6 && recorder.paths.last?.supportsIPv6 == true)
    }

    @Test func ipv4FromRuleSendsThroughTheOtherUplinkAndItsKillSwitch() async throws {
        let ns = try TestNamespace("rulev4")
        defer { ns.remove() }
        try ns.addLinks("eth0", "eth1")
        try ns.batch(["link set eth0 up", "link set eth1 up", "addr add 192.0.2.2/24 dev eth0", "addr add 198.51.100.2/24 dev eth1",
                      "route add default via 192.0.2.1"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        #expect(try await recorder.expectAgreement(ns).primary == "eth0")
        // The socket picks 192.0.2.2 from the main table; a rule on that source sends it
        // out through eth1.
        try ns.batch(["route add default via 198.51.100.1 dev eth1 table 200", "rule add from 192.0.2.2 lookup 200"])
        #expect(try await recorder.expectAgreement(ns).primary == "eth1")
        #expect(recorder.paths.last?.gateways == ["198.51.100.1"])
        // A kill switch keyed on the source: connect() fails with EHOSTUNREACH.
        try ns.ip("route replace unreachable default table 200")
        let killed = try await recorder.expectAgreement(ns)
        #expect(killed.refuses && recorder.paths.last?.diagnosis == .blocked)
    }

    @Test func ipsecBlockPoliciesAreBlocked() async throws {
        let ns = try dualStack("xfrm", 43)
        defer { ns.remove() }
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        #expect(try await recorder.expectAgreement(ns).isSatisfied)
        // strongSwan's type=drop, libreswan's failureshunt=drop: every connect() gets EPERM.
        try ns.ip("xfrm policy add dir out src 0.0.0.0/0 dst 0.0.0.0/0 action block")
        try ns.ip("xfrm policy add dir out src ::/0 dst ::/0 action block")
        let blocked = try await recorder.expectAgreement(ns)
        #expect(blocked.ipv4 == .refused("Operation not permitted") && recorder.paths.last?.diagnosis == .blocked)
        try ns.ip("xfrm policy flush")
        #expect(try await recorder.expectAgreement(ns).isSatisfied)
    }

    @Test func anOptimisticAddressCountsBeforeDADEnds() async throws {
        let ns = try TestNamespace("optdad")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try run(Kernel.ipPath, ["netns", "exec", ns.name, "sysctl", "-qw", "net.ipv6.conf.eth0.dad_transmits=30"])
        try run(Kernel.ipPath, ["netns", "exec", ns.name, "sysctl", "-qw", "net.ipv6.conf.eth0.optimistic_dad=1"])
        try ns.ip("link set eth0 up")
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        // DAD takes 30 s here: the address stays tentative, and optimistic, all test long.
        try ns.batch(["addr add 2001:db8:44::2/64 dev eth0 optimistic", "route add ::/0 via 2001:db8:44::1 dev eth0"])
        let decision = try await recorder.expectAgreement(ns)
        #expect(decision.supportsIPv6 && recorder.paths.last?.supportsIPv6 == true)
        let flags = try run(Kernel.ipPath, ["-n", ns.name, "-6", "addr", "show", "dev", "eth0", "scope", "global"])
        #expect(flags.contains("tentative") && flags.contains("optimistic"), "\(flags)")
    }

    /// The order a hand or SLAAC gives: the default route first (`noAddress`), the optimistic
    /// address after it. The monitor agrees with the kernel as soon as the address is there,
    /// not when DAD ends (30 s here).
    @Test func anOptimisticAddressAddedAfterTheRouteCountsAtOnce() async throws {
        let ns = try TestNamespace("optlate")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try run(Kernel.ipPath, ["netns", "exec", ns.name, "sysctl", "-qw", "net.ipv6.conf.eth0.dad_transmits=30"])
        try run(Kernel.ipPath, ["netns", "exec", ns.name, "sysctl", "-qw", "net.ipv6.conf.eth0.optimistic_dad=1"])
        try run(Kernel.ipPath, ["netns", "exec", ns.name, "sysctl", "-qw", "net.ipv6.conf.eth0.use_optimistic=1"])
        try ns.ip("link set eth0 up")
        try ns.ip("-6 route add default via fe80::1 dev eth0")
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        let before = try await recorder.expectAgreement(ns)
        #expect(!before.isSatisfied && recorder.paths.last?.diagnosis == .noAddress, "\(recorder.paths.map(\.summary))")
        try ns.ip("-6 addr add 2001:db8:45::2/64 dev eth0 optimistic")
        let after = try await recorder.expectAgreement(ns)
        #expect(after.supportsIPv6 && recorder.paths.last?.supportsIPv6 == true, "\(recorder.paths.map(\.summary))")
        let flags = try run(Kernel.ipPath, ["-n", ns.name, "-6", "addr", "show", "dev", "eth0", "scope", "global"])
        #expect(flags.contains("tentative"), "DAD ended before the check: \(flags)")
    }

    @Test func forwardingSettingsAndLinkGroupsThatSendNoRouteMessage() async throws {
        let ns = try TestNamespace("netconf")
        defer { ns.remove() }
        try ns.addLinks("eth0", "eth1")
        try ns.batch(["link set eth0 up", "link set eth1 up", "addr add 10.45.0.2/24 dev eth0", "addr add 10.46.0.2/24 dev eth1",
                      "route add default via 10.45.0.1 metric 200", "route add default via 10.46.0.1 metric 100"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        #expect(try await recorder.expectAgreement(ns).primary == "eth1")
        // eth1 loses its carrier: the kernel still routes through it...
        try run(Kernel.ipPath, ["-n", ns.name + "p", "link", "set", "p-eth1", "down"])
        let linkdown = try await recorder.expectAgreement(ns)
        #expect(!linkdown.isSatisfied && recorder.paths.last?.diagnosis == .noCarrier)
        // ...until told to ignore routes through links without carrier (RTM_NEWNETCONF only).
        try run(Kernel.ipPath, ["netns", "exec", ns.name, "sysctl", "-qw", "net.ipv4.conf.all.ignore_routes_with_linkdown=1"])
        let ignored = try await recorder.expectAgreement(ns, seconds: 1)
        #expect(ignored.primary == "eth0", "\(ignored); monitor: \(recorder.paths.map(\.summary))")
        // suppress_ifgroup: eth0 put in group 5 sends the kernel to table 300 (RTM_NEWLINK
        // with nothing but the group changed).
        try ns.batch(["route add default via 10.45.0.1 table 300 metric 5", "rule add pref 100 lookup main suppress_ifgroup 5",
                      "rule add pref 200 lookup 300"])
        try run(Kernel.ipPath, ["-n", ns.name + "p", "link", "set", "p-eth1", "up"])
        try run(Kernel.ipPath, ["netns", "exec", ns.name, "sysctl", "-qw", "net.ipv4.conf.all.ignore_routes_with_linkdown=0"])
        try ns.ip("route del default via 10.45.0.1 metric 200")
        #expect(try await recorder.expectAgreement(ns).primary == "eth1")
        try ns.ip("link set eth1 group 5")
        #expect(try await recorder.expectAgreement(ns, seconds: 1).primary == "eth0")
        try ns.ip("link set eth1 group 0")
        #expect(try await recorder.expectAgreement(ns, seconds: 1).primary == "eth1")
    }

    @Test func theDiagnosisWalksTheRulesAsTheKernelDoes() async throws {
        let ns = try dualStack("rulewalk", 47)
        defer { ns.remove() }
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        #expect(try await recorder.expectAgreement(ns).isSatisfied)
        // A kill switch for everything without the tunnel's mark (both families).
        try ns.ip("rule add pref 100 not fwmark 0xca6c unreachable")
        try ns.ip("-6 rule add pref 100 not fwmark 0xca6c unreachable")
        let killed = try await recorder.expectAgreement(ns)
        #expect(killed.ipv4 == .refused("Network is unreachable") && recorder.paths.last?.diagnosis == .blocked)
        try ns.ip("rule del pref 100")
        try ns.ip("-6 rule del pref 100")
        #expect(try await recorder.expectAgreement(ns).isSatisfied)
        // No default route at all, and a goto that jumps over a prohibit rule: the kernel
        // says "network unreachable" because nothing routes, not because a rule refused.
        try ns.batch(["route del default", "rule add pref 300 lookup main", "rule add pref 200 prohibit", "rule add pref 100 goto 300"])
        try ns.ip("-6 route del ::/0")
        let missing = try await recorder.expectAgreement(ns)
        #expect(missing.ipv4 == .refused("Network is unreachable") && recorder.paths.last?.diagnosis == .noDefaultRoute)
        // Without the goto, the prohibit rule answers (EACCES): blocked.
        try ns.ip("rule del pref 100")
        #expect(try await recorder.expectAgreement(ns).refuses && recorder.paths.last?.diagnosis == .blocked)
    }

    @Test func aDefaultInATableNoRuleUsesDoesNotRank() async throws {
        let ns = try TestNamespace("rank")
        defer { ns.remove() }
        try ns.addLinks("eth0", "eth1", "eth2")
        try ns.batch(["link set eth0 up", "link set eth1 up", "link set eth2 up", "addr add 10.48.0.2/24 dev eth0",
                      "addr add 10.49.0.2/24 dev eth1", "addr add 10.50.0.2/24 dev eth2", "route add default via 10.48.0.1 metric 50",
                      "route add default via 10.50.0.1 table 77 metric 1"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        try await recorder.expectAgreement(ns)
        #expect(recorder.paths.last?.availableInterfaces.map(\.name) == ["eth0", "eth1", "eth2"])
        // Once a rule uses table 77, its default ranks eth2 before eth1.
        try ns.ip("rule add pref 1000 lookup 77")
        #expect(await recorder.wait(seconds: 5) { $0.availableInterfaces.map(\.name) == ["eth2", "eth0", "eth1"] } != nil)
    }

    /// SPEC 2.9: a route deleted while the monitor starts (between its subscription, its
    /// dumps and its first question). The kernel announces an IPv4 route's deletion just
    /// before it takes the route out of its table, so a question asked right after reading
    /// the announcement can still be answered with the route.
    @Test func aDeletionWhileStartingIsNeverLost() async throws {
        let ns = try TestNamespace("startdel")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.51.0.2/24 dev eth0", "addr add 2001:db8:51::2/64 dev eth0 nodad",
                      "route add ::/0 via 2001:db8:51::1"])
        let name = ns.name
        var stale: [String] = []
        for run in 0..<200 {
            try ns.ip("route replace default via 10.51.0.1")
            let delay = UInt32(run % 21) * 1000
            let deleter = Thread {
                usleep(delay)
                _ = try? KernelTestSupport.run(Kernel.ipPath, ["-n", name, "route", "del", "default"])
            }
            deleter.start()
            let (monitor, recorder) = try startMonitor(ns)
            let deleted = await recorder.wait(seconds: 5) { !$0.supportsIPv4 && $0.supportsIPv6 }
            if deleted == nil {
                stale.append("run \(run) (\(delay / 1000) ms): \(recorder.paths.map(\.summary))")
            }
            monitor.cancel()
            while deleter.isExecuting || !deleter.isFinished { await Task.yield() }
        }
        #expect(stale.isEmpty, "\(stale.count) of 200 starts kept a deleted route: \(stale.prefix(5))")
    }
}
