import CTestSupport
import Foundation
import Testing
import KernelTestSupport
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// SPEC §2 on the real kernel: each test makes its own namespaces, drives links, addresses
/// and routes with `ip`, and asserts the exact sequence of paths the monitor delivered.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct PathTransitionTests {
    @Test func everyDiagnosisInTurnOnAVethLink() async throws {
        let ns = try TestNamespace("diag"), peer = try TestNamespace("peer")
        defer { ns.remove(); peer.remove() }
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        await recorder.expect("unsatisfied/noInterface []")
        try ns.ip("link add v0 type veth peer name p0 netns \(peer.name)")
        try ns.ip("link set v0 up")
        await recorder.expect("unsatisfied/noCarrier []")
        try peer.ip("link set p0 up")
        await recorder.expect("unsatisfied/noAddress [v0:wiredEthernet]")
        try ns.ip("addr add 10.1.0.2/24 dev v0")
        await recorder.expect("unsatisfied/noDefaultRoute [v0:wiredEthernet]")
        try ns.ip("route add default via 10.1.0.1")
        await recorder.expect("satisfied [v0:wiredEthernet] gw 10.1.0.1 v4")
        // Carrier loss keeps the route in the kernel (linkdown); it counts again on return.
        try peer.ip("link set p0 down")
        await recorder.expect("unsatisfied/noCarrier []")
        try peer.ip("link set p0 up")
        await recorder.expect("satisfied [v0:wiredEthernet] gw 10.1.0.1 v4")
        // Administrative down: the kernel drops the route without a message.
        try ns.ip("link set v0 down")
        await recorder.expect("unsatisfied/noInterface []")
        try ns.ip("link set v0 up")
        await recorder.expect("unsatisfied/noDefaultRoute [v0:wiredEthernet]")
        recorder.expectSequence([
            "unsatisfied/noInterface []",
            "unsatisfied/noCarrier []",
            "unsatisfied/noAddress [v0:wiredEthernet]",
            "unsatisfied/noDefaultRoute [v0:wiredEthernet]",
            "satisfied [v0:wiredEthernet] gw 10.1.0.1 v4",
            "unsatisfied/noCarrier []",
            "satisfied [v0:wiredEthernet] gw 10.1.0.1 v4",
            "unsatisfied/noInterface []",
            "?unsatisfied/noCarrier []",  // veth's carrier follows IFF_UP a moment later
            "unsatisfied/noDefaultRoute [v0:wiredEthernet]",
        ])
        #expect(recorder.paths.first?.unsatisfiedReason == .notAvailable)
        #expect(recorder.paths[4].unsatisfiedReason == nil && recorder.paths[4].diagnosis == nil)
    }

    @Test func dormantLinkRequiresConnection() async throws {
        let ns = try TestNamespace("dorm"), peer = try TestNamespace("peer")
        defer { ns.remove(); peer.remove() }
        try ns.ip("link add v0 type veth peer name p0 netns \(peer.name)")
        try ns.ip("addr add 10.3.0.2/24 dev v0")
        try ns.ip("link set v0 mode dormant")
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        try ns.ip("link set v0 up")
        try peer.ip("link set p0 up")
        // Carrier, but the link is DORMANT (as Wi-Fi while it authenticates).
        await recorder.expect("requiresConnection/noCarrier []")
        try ns.ip("link set v0 mode default")
        try peer.ip("link set p0 down")
        try peer.ip("link set p0 up")
        await recorder.expect("unsatisfied/noDefaultRoute [v0:wiredEthernet]")
        #expect(recorder.paths.first(where: { $0.status == .requiresConnection })?.unsatisfiedReason == .notAvailable)
        #expect(!recorder.paths.map(\.summary).contains("satisfied [v0:wiredEthernet]"))
    }

    @Test func tunDeviceCountsWithUnknownOperstateAndLowerUp() async throws {
        let ns = try TestNamespace("tun")
        defer { ns.remove() }
        try ns.ip("tuntap add dev tun0 mode tun")
        try ns.ip("link set tun0 up")
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        await recorder.expect("unsatisfied/noCarrier []")
        // A process attaches to the device: carrier, operstate UNKNOWN with LOWER_UP.
        let descriptor = ctest_tun_attach_in("/var/run/netns/\(ns.name)", "tun0")
        try #require(descriptor >= 0)
        await recorder.expect("unsatisfied/noAddress [tun0:other]")
        try ns.ip("addr add 10.8.0.2/24 dev tun0")
        // Seen before the route comes (a slow reader would read both in one batch).
        await recorder.expect("unsatisfied/noDefaultRoute [tun0:other]")
        try ns.ip("route add default dev tun0")
        await recorder.expect("satisfied [tun0:other] v4")
        close(descriptor)
        await recorder.expect("unsatisfied/noCarrier []")
        recorder.expectSequence([
            "unsatisfied/noCarrier []",
            "unsatisfied/noAddress [tun0:other]",
            "unsatisfied/noDefaultRoute [tun0:other]",
            "satisfied [tun0:other] v4",
            "unsatisfied/noCarrier []",
        ])
    }

    @Test func metricsOrderInterfacesAndGateways() async throws {
        let ns = try TestNamespace("metric")
        defer { ns.remove() }
        try ns.addLinks("d1", "d2")
        try ns.batch([
            "link set d1 up", "link set d2 up",
            "addr add 10.1.0.2/24 dev d1", "addr add 10.2.0.2/24 dev d2",
        ])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        await recorder.expect("unsatisfied/noDefaultRoute [d1:wiredEthernet,d2:wiredEthernet]")
        try ns.ip("route add default via 10.1.0.1 metric 200")
        await recorder.expect("satisfied [d1:wiredEthernet,d2:wiredEthernet] gw 10.1.0.1 v4")
        try ns.ip("route add default via 10.2.0.1 metric 100")
        // Only the gateway of the route the kernel chose (the lowest metric).
        await recorder.expect("satisfied [d2:wiredEthernet,d1:wiredEthernet] gw 10.2.0.1 v4")
        try ns.ip("route del default via 10.2.0.1 metric 100")
        await recorder.expect("satisfied [d1:wiredEthernet,d2:wiredEthernet] gw 10.1.0.1 v4")
        // `ip route replace`: one NEWROUTE with NLM_F_REPLACE, no DELROUTE.
        try ns.ip("route replace default via 10.2.0.1 metric 200")
        await recorder.expect("satisfied [d2:wiredEthernet,d1:wiredEthernet] gw 10.2.0.1 v4")
        #expect(recorder.paths.drop { $0.diagnosis == .noCarrier }.count == 5)
    }

    @Test func multipathDefaultCountsThroughAnyUsableNexthop() async throws {
        let ns = try TestNamespace("mpath")
        defer { ns.remove() }
        try ns.addLinks("d1", "d2")
        try ns.batch([
            "link set d1 up", "link set d2 up",
            "addr add 10.1.0.2/24 dev d1", "addr add 10.2.0.2/24 dev d2",
            "route add default nexthop via 10.1.0.1 dev d1 nexthop via 10.2.0.1 dev d2",
        ])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        // The kernel picks one next hop per flow (by hash): the path names the one it picks.
        #expect(try await recorder.expectAgreement(ns).isSatisfied)
        #expect(Set(recorder.paths.last?.availableInterfaces.map(\.name) ?? []) == ["d1", "d2"])
        try ns.ip("link set d1 down")
        await recorder.expect("satisfied [d2:wiredEthernet] gw 10.2.0.1 v4")
        try await recorder.expectAgreement(ns)
    }

    @Test func refusingAndLocalTableDefaults() async throws {
        let ns = try TestNamespace("bhole")
        defer { ns.remove() }
        try ns.addLinks("d0")
        try ns.batch(["link set d0 up", "addr add 10.4.0.2/24 dev d0"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        await recorder.expect("unsatisfied/noDefaultRoute [d0:wiredEthernet]")
        // A default in the local table is looked up first (rule 0) and is not a way out.
        try ns.ip("route add default via 10.4.0.1 table local")
        try ns.ip("route add default via 10.4.0.1 metric 10")
        #expect(try await recorder.expectAgreement(ns).isSatisfied)
        try ns.ip("route del default via 10.4.0.1 table local")
        // Refusing defaults with better metrics: the kernel uses the best, and refuses.
        try ns.batch(["route add prohibit default metric 3", "route add unreachable default metric 2"])
        #expect(try await recorder.expectAgreement(ns).refuses)
        try ns.ip("route add blackhole default metric 1")
        #expect(try await recorder.expectAgreement(ns).refuses)
        #expect(recorder.paths.last?.diagnosis == .blocked)
        try ns.batch(["route del blackhole default metric 1", "route del unreachable default metric 2", "route del prohibit default metric 3"])
        await recorder.expect("satisfied [d0:wiredEthernet] gw 10.4.0.1 v4")
        recorder.expectSequence([
            "?unsatisfied/noCarrier []",
            "unsatisfied/noDefaultRoute [d0:wiredEthernet]",
            "satisfied [d0:wiredEthernet] gw 10.4.0.1 v4",
            "unsatisfied/blocked [d0:wiredEthernet]",
            "satisfied [d0:wiredEthernet] gw 10.4.0.1 v4",
        ])
    }

    @Test func ipv6OnlyAndAddressRules() async throws {
        let ns = try TestNamespace("six"), peer = try TestNamespace("peer")
        defer { ns.remove(); peer.remove() }
        try ns.ip("link add v0 type veth peer name p0 netns \(peer.name)")
        try peer.ip("link set p0 up")
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        try ns.ip("link set v0 up")
        // Only the automatic fe80:: address: link-local never counts.
        await recorder.expect("unsatisfied/noAddress [v0:wiredEthernet]")
        // With duplicate address detection the address is tentative for about a second.
        try ns.ip("addr add 2001:db8::2/64 dev v0")
        await recorder.expect("unsatisfied/noDefaultRoute [v0:wiredEthernet]")
        try ns.ip("-6 route add default via 2001:db8::1 dev v0")
        await recorder.expect("satisfied [v0:wiredEthernet] gw 2001:db8::1 v6")
        recorder.expectSequence([
            "unsatisfied/noInterface []",
            "?unsatisfied/noCarrier []",
            "unsatisfied/noAddress [v0:wiredEthernet]",
            "unsatisfied/noDefaultRoute [v0:wiredEthernet]",
            "satisfied [v0:wiredEthernet] gw 2001:db8::1 v6",
        ])
    }

    @Test func renameDeleteAndIndexReuse() async throws {
        let ns = try TestNamespace("rename")
        defer { ns.remove() }
        try ns.addLinks("d0", index: 42)
        try ns.batch([
            "link set d0 up", "addr add 10.5.0.2/24 dev d0",
            "route add default via 10.5.0.1",
        ])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        await recorder.expect("satisfied [d0:wiredEthernet] gw 10.5.0.1 v4")
        try ns.batch(["link set d0 down", "link set d0 name wan0", "link set wan0 up", "route add default via 10.5.0.1"])
        await recorder.expect("satisfied [wan0:wiredEthernet] gw 10.5.0.1 v4")
        #expect(recorder.paths.last?.availableInterfaces.first?.index == 42)
        try ns.ip("link del wan0")
        await recorder.expect("unsatisfied/noInterface []")
        // The same index again, a new link without addresses: nothing of the old one may remain.
        try ns.addLinks("x9", index: 42)
        try ns.ip("link set x9 up")
        await recorder.expect("unsatisfied/noAddress [x9:wiredEthernet]")
    }

    @Test func spuriousLinkMessagesEmitNothing() async throws {
        let ns = try TestNamespace("spur")
        defer { ns.remove() }
        try ns.addLinks("d0")
        try ns.batch([
            "link set d0 up", "addr add 10.6.0.2/24 dev d0", "route add default via 10.6.0.1",
        ])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        await recorder.expect("satisfied [d0:wiredEthernet] gw 10.6.0.1 v4")
        try ns.batch(["link set d0 mtu 1400", "link set d0 up", "link set d0 alias uplink", "link set d0 txqueuelen 10",
                      "addr add 10.6.1.2/24 dev d0", "link set d0 promisc on"])
        // The sentinel: the first change that matters must be the next path delivered.
        try ns.ip("route replace default via 10.6.1.1")
        await recorder.expect("satisfied [d0:wiredEthernet] gw 10.6.1.1 v4")
        #expect(recorder.paths.drop { $0.status != .satisfied }.count == 2)
    }

    @Test func eventStormIsCoalescedIntoTheRealChanges() async throws {
        let ns = try TestNamespace("storm")
        defer { ns.remove() }
        try ns.addLinks("d0")
        try ns.batch(["link set d0 up", "addr add 10.7.0.2/24 dev d0", "route add default via 10.7.0.1"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        await recorder.expect("satisfied [d0:wiredEthernet] gw 10.7.0.1 v4")
        let source = try #require(monitor.storage.source as? LinuxPathSource)
        let roundsBefore = source.lookupRounds
        let adds = (0..<3000).map { "addr add 10.\(100 + $0 / 250).\($0 % 250).1/32 dev d0" }
        try ns.batch(adds + ["route del default"])
        await recorder.expect("unsatisfied/noDefaultRoute [d0:wiredEthernet]")
        #expect(recorder.paths.drop { $0.status != .satisfied }.count == 2)
        // 3,000 addresses and their 3,000 local routes cannot change the kernel's answer: the
        // kernel was asked again for the route deletion only.
        #expect(source.lookupRounds - roundsBefore == 1)
    }

    @Test func receiveBufferOverrunRedumpsAndEndsOnTheTruePath() async throws {
        let ns = try TestNamespace("ovrun")
        defer { ns.remove() }
        try ns.addLinks("d0")
        try ns.batch(["link set d0 up", "addr add 10.9.0.2/24 dev d0", "route add default via 10.9.0.1"])
        let gate = Gate()
        var options = LinuxSourceOptions()
        options.receiveBufferSize = 8192
        options.beforeRead = { gate.pass() }
        gate.close()
        let (monitor, recorder) = try startMonitor(ns, options: options)
        defer { monitor.cancel() }
        await recorder.expect("satisfied [d0:wiredEthernet] gw 10.9.0.1 v4")
        // The reader is now stuck before its first read; thousands of events overflow the queue.
        let adds = (0..<2000).map { "addr add 10.\(100 + $0 / 250).\($0 % 250).1/32 dev d0" }
        try ns.addLinks("d1")
        try ns.batch(adds + ["link set d1 up", "addr add 10.10.0.2/24 dev d1",
                             "route del default", "route add default via 10.10.0.1 dev d1"])
        gate.open()
        await recorder.expect("satisfied [d1:wiredEthernet,d0:wiredEthernet] gw 10.10.0.1 v4")
        let source = try #require(monitor.storage.source as? LinuxPathSource)
        #expect(source.resyncCount >= 1, "the overrun should have forced a new dump")
        // It keeps going after the overrun.
        try ns.ip("link set d1 down")
        await recorder.expect("unsatisfied/noDefaultRoute [d0:wiredEthernet]")
    }

    @Test func typeFiltersAndFilteredDiagnosis() async throws {
        let ns = try TestNamespace("filter")
        defer { ns.remove() }
        try ns.addLinks("d0")
        try ns.batch(["link set d0 up", "addr add 10.11.0.2/24 dev d0", "route add default via 10.11.0.1"])
        let (wifiOnly, wifiRecorder) = try startMonitor(ns, required: .wifi)
        defer { wifiOnly.cancel() }
        await wifiRecorder.expect("unsatisfied/filtered []")
        let (noWired, noWiredRecorder) = try startMonitor(ns, prohibited: [.wiredEthernet])
        defer { noWired.cancel() }
        await noWiredRecorder.expect("unsatisfied/filtered []")
        try ns.ip("route del default")
        await noWiredRecorder.expect("unsatisfied/noInterface []")
        let (wired, wiredRecorder) = try startMonitor(ns, required: .wiredEthernet)
        defer { wired.cancel() }
        await wiredRecorder.expect("unsatisfied/noDefaultRoute [d0:wiredEthernet]")
    }

    @Test func dnsFollowsTheNamespaceResolverFile() async throws {
        let ns = try TestNamespace("dns")
        defer { ns.remove() }
        let directory = "/etc/netns/\(ns.name)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "nameserver 192.0.2.53\n".write(toFile: directory + "/resolv.conf", atomically: true, encoding: .utf8)
        try ns.addLinks("d0")
        try ns.batch(["link set d0 up", "addr add 10.12.0.2/24 dev d0", "route add default via 10.12.0.1"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        await recorder.expect("satisfied [d0:wiredEthernet] gw 10.12.0.1 v4 dns")
        try "# no servers\nsearch example.org\n".write(toFile: directory + "/resolv.conf", atomically: true, encoding: .utf8)
        await recorder.expect("satisfied [d0:wiredEthernet] gw 10.12.0.1 v4")
        try "nameserver 2001:db8::53\n".write(toFile: directory + "/resolv.conf", atomically: false, encoding: .utf8)
        await recorder.expect("satisfied [d0:wiredEthernet] gw 10.12.0.1 v4 dns")
        // Without its own file, the namespace uses /etc/resolv.conf (the `ip netns exec` rule).
        try FileManager.default.removeItem(atPath: directory + "/resolv.conf")
        let systemHasServer = ResolverConfiguration(candidates: ["/etc/resolv.conf"]).hasServer(read: { Syscall.readFile($0) })
        await recorder.expect("satisfied [d0:wiredEthernet] gw 10.12.0.1 v4" + (systemHasServer ? " dns" : ""))
        try "nameserver 192.0.2.54\n".write(toFile: directory + "/resolv.conf", atomically: true, encoding: .utf8)
        if systemHasServer {
            try "# none\n".write(toFile: directory + "/resolv.conf", atomically: true, encoding: .utf8)
            await recorder.expect("satisfied [d0:wiredEthernet] gw 10.12.0.1 v4")
        } else {
            await recorder.expect("satisfied [d0:wiredEthernet] gw 10.12.0.1 v4 dns")
        }
    }
}

/// Blocks the monitor's reader thread until opened.
final class Gate: Sendable {
    private let condition = NSCondition()
    private let closed = Shared(false)

    func close() { closed.withLock { $0 = true } }

    func open() {
        condition.lock()
        closed.withLock { $0 = false }
        condition.broadcast()
        condition.unlock()
    }

    func pass() {
        condition.lock()
        while closed.withLock({ $0 }) { condition.wait() }
        condition.unlock()
    }
}
