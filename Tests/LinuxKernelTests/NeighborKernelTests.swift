import Foundation
import Synchronization
import Testing
import KernelTestSupport
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// The gateway step from the kernel (SPEC §3, "Per network"): the default gateways'
/// neighbor entries, watched for the gateways only, and the network's identity from their
/// link-layer addresses. The truth is `ip -j neigh`.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"), .serialized)
struct NeighborKernelTests {
    /// The identifier NetPath must give for the entry `ip -j neigh` shows.
    /// Changes the gateway's entry 3,001 times, enough to overflow the neighbor queue of a
    /// reader that is stuck: between two routers' addresses, the last time to a third's
    /// (02:00:00:00:00:0c). The network identifier of that last entry.
    private func changeTheGatewaysEntry3001Times(_ lab: GatewayLab) throws -> String? {
        let flips = (0..<3000).map { "neigh replace 192.0.2.1 lladdr 02:00:00:00:00:\($0 % 2 == 0 ? "0a" : "0b") dev c0 nud permanent" }
        try lab.client.batch(flips + ["neigh replace 192.0.2.1 lladdr 02:00:00:00:00:0c dev c0 nud permanent"])
        return NetworkIdentity.identifier(linkLayerAddresses: [[2, 0, 0, 0, 0, 0x0c]], key: LinuxPathSource.identityKey)
    }

    private func identity(of entry: KernelNeighbor?) -> String? {
        entry?.lladdrBytes.flatMap { NetworkIdentity.identifier(linkLayerAddresses: [$0], key: LinuxPathSource.identityKey) }
    }

    @Test func aRouterThatStopsAnsweringIsShownWithoutACheck() async throws {
        let lab = try GatewayLab("nbfail")
        defer { lab.remove() }
        let (monitor, recorder) = try startMonitor(lab.client)
        defer { monitor.cancel() }
        await recorder.expect("satisfied [c0:wiredEthernet] gw 192.0.2.1 v4")
        // The router loses its address; the client's next packet finds no one to answer.
        try lab.router.ip("addr del 192.0.2.1/24 dev r0")
        try lab.client.sendTraffic()
        let failed = await recorder.wait { $0.unresponsiveGateways == ["192.0.2.1"] }
        #expect(failed != nil, "no unresponsive gateway; paths: \(recorder.paths.map(\.unresponsiveGateways))")
        #expect(try lab.client.neighbor("192.0.2.1")?.states.contains("FAILED") == true)
        #expect(failed?.status == .satisfied, "a route exists: the kernel's status stands")
        #expect(failed?.description.contains("the router 192.0.2.1 does not answer (no ARP reply)") == true)
        // A check over that path fails at its first step, the gateway.
        let check = try ConnectivityCheck(endpoints: [try .init("http://198.51.100.1/204")], timeout: .seconds(1))
        let failedPath: NetworkPath = try #require(failed)
        let result = await check.run(over: failedPath, namespace: lab.client.namespace)
        #expect(result.connectivity != .full && result.ipv4?.failedStep == .gateway, "\(result)")
        // It answers again.
        try lab.router.ip("addr add 192.0.2.1/24 dev r0")
        try lab.client.sendTraffic()
        let back = await recorder.wait { $0.unresponsiveGateways.isEmpty && $0.network != nil }
        let entry = try lab.client.neighbor("192.0.2.1")
        #expect(entry?.states.contains("REACHABLE") == true)
        #expect(back?.network != nil && back?.network == identity(of: entry))
    }

    @Test func anIPv6RouterThatStopsAnsweringIsShownWithoutACheck() async throws {
        // An IPv6-only client whose default route goes through the router's link-local
        // address, as a router advertisement leaves it.
        let client = try TestNamespace("nb6c"), router = try TestNamespace("nb6r")
        defer { client.remove(); router.remove() }
        try client.ip("link add c0 type veth peer name r0 netns \(router.name)")
        try client.sysctl("net.ipv6.conf.c0.accept_dad=0")
        try router.sysctl("net.ipv6.conf.r0.accept_dad=0")
        try router.batch(["link set r0 up", "addr add fe80::1/64 dev r0"])
        try client.batch(["link set c0 up", "addr add 2001:db8::2/64 dev c0 nodad", "route add default via fe80::1 dev c0"])
        try client.sysctl("net.ipv6.neigh.c0.retrans_time_ms=100")
        let (monitor, recorder) = try startMonitor(client)
        defer { monitor.cancel() }
        await recorder.expect("satisfied [c0:wiredEthernet] gw fe80::1 v6")
        // The router loses its address; the client's next packet finds no one to answer.
        try router.ip("addr del fe80::1/64 dev r0")
        try client.sendTraffic(to: "2001:db8:ffff::1")
        let failed = await recorder.wait { $0.unresponsiveGateways == ["fe80::1"] }
        #expect(failed != nil, "no unresponsive gateway; paths: \(recorder.paths.map(\.unresponsiveGateways))")
        #expect(try client.neighbor("fe80::1")?.states.contains("FAILED") == true)
        #expect(failed?.status == .satisfied, "a route exists: the kernel's status stands")
        #expect(failed?.description.contains("the router fe80::1 does not answer (no neighbor advertisement)") == true,
                "\(failed?.description ?? "")")
        // It answers again: the network is the one its link-layer address names.
        try router.ip("addr add fe80::1/64 dev r0")
        try client.sendTraffic(to: "2001:db8:ffff::1")
        let back = await recorder.wait { $0.unresponsiveGateways.isEmpty && $0.network != nil }
        let entry = try client.neighbor("fe80::1")
        #expect(entry?.states.contains("REACHABLE") == true)
        #expect(back?.network != nil && back?.network == identity(of: entry))
    }

    @Test func anotherRouterBehindTheSameGatewayAddressIsAnotherNetwork() async throws {
        // A switch (a bridge) joins the client and two routers that both hold 192.0.2.1;
        // only one is plugged in at a time.
        let client = try TestNamespace("nbidc"), fabric = try TestNamespace("nbids")
        let first = try TestNamespace("nbida"), second = try TestNamespace("nbidb")
        defer { for ns in [client, fabric, first, second] { ns.remove() } }
        try fabric.batch(["link add br0 type bridge", "link set br0 up"])
        for (ns, inside, port) in [(client, "c0", "pc"), (first, "a0", "pa"), (second, "b0", "pb")] {
            try ns.ip("link add \(inside) type veth peer name \(port) netns \(fabric.name)")
            try fabric.ip("link set \(port) master br0")
        }
        try fabric.batch(["link set pc up", "link set pa up"])
        try first.batch(["link set a0 up", "addr add 192.0.2.1/24 dev a0"])
        try second.batch(["link set b0 up", "addr add 192.0.2.1/24 dev b0"])
        try client.batch(["link set c0 up", "addr add 192.0.2.2/24 dev c0", "route add default via 192.0.2.1"])
        let (monitor, recorder) = try startMonitor(client)
        defer { monitor.cancel() }
        try client.sendTraffic()
        let onFirst = await recorder.wait { $0.network != nil }
        let firstEntry = try client.neighbor("192.0.2.1")
        #expect(onFirst?.network != nil && onFirst?.network == identity(of: firstEntry))
        let before = recorder.paths.count
        // The client is moved to the other router: the first one unplugged, the second one
        // plugged in, the entries of the old link flushed (as a reconnection leaves them),
        // then traffic.
        try fabric.batch(["link set pa down", "link set pb up"])
        try client.ip("neigh flush dev c0")
        try client.sendTraffic()
        let onSecond = await recorder.wait { $0.network != nil && $0.network != onFirst?.network }
        let secondEntry = try client.neighbor("192.0.2.1")
        #expect(secondEntry?.lladdr != nil && secondEntry?.lladdr != firstEntry?.lladdr)
        #expect(onSecond?.network != nil && onSecond?.network == identity(of: secondEntry))
        #expect(onSecond?.gateways == ["192.0.2.1"] && onSecond?.availableInterfaces.map(\.name) == ["c0"])
        #expect(recorder.paths.count - before == 1, "one change; paths: \(recorder.paths.dropFirst(before).map { $0.network ?? "nil" })")
    }

    @Test func aDefaultRouteThatComesBackHasItsGatewaysEntryReadAgain() async throws {
        let lab = try GatewayLab("nbback")
        defer { lab.remove() }
        let (monitor, recorder) = try startMonitor(lab.client)
        defer { monitor.cancel() }
        try lab.client.sendTraffic()
        let known = await recorder.wait { $0.network != nil }
        #expect(known != nil)
        // The route goes; meanwhile the gateway's entry changes (another router's address),
        // which no path shows while there is no route.
        try lab.client.ip("route del default")
        let gone = await recorder.wait { $0.status == .unsatisfied }
        #expect(gone?.network == nil && gone?.gateways == [])
        try lab.client.ip("neigh replace 192.0.2.1 lladdr 02:00:00:00:00:77 dev c0 nud permanent")
        // It comes back: the entry as the kernel has it now, not as it was.
        try lab.client.ip("route add default via 192.0.2.1")
        let back = await recorder.wait { $0.status == .satisfied }
        let entry = try lab.client.neighbor("192.0.2.1")
        #expect(entry?.lladdr == "02:00:00:00:00:77")
        #expect(back?.network != nil && back?.network == identity(of: entry) && back?.network != known?.network,
                "paths: \(recorder.paths.map { $0.network ?? "nil" })")
    }

    /// While the default route is gone the old gateway's entry is followed, not read again
    /// when the route comes back; a queue that overflowed meanwhile makes it read again.
    @Test func aGatewayFollowedWithoutARouteIsReadAgainAfterAnOverflow() async throws {
        let lab = try GatewayLab("nbfol")
        defer { lab.remove() }
        let gate = Gate()
        var options = LinuxSourceOptions()
        options.beforeRead = { gate.pass() }
        let (monitor, recorder) = try startMonitor(lab.client, options: options)
        defer { monitor.cancel() }
        await recorder.expect("satisfied [c0:wiredEthernet] gw 192.0.2.1 v4")
        let source = try #require(monitor.storage.source as? LinuxPathSource)
        try lab.client.ip("route del default")
        let gone = await recorder.wait { $0.status == .unsatisfied }
        #expect(gone != nil)
        // The reader is stuck at its next turn; the gateway's entry changes 3,001 times, which
        // overflows the queue: the last change, a third router's address, is among the lost.
        gate.close()
        let seenBefore = source.neighborMessagesSeen
        let final = try changeTheGatewaysEntry3001Times(lab)
        try lab.client.ip("route add default via 192.0.2.1")
        gate.open()
        let back = await recorder.wait { $0.status == .satisfied && $0.network == final }
        #expect(back != nil, "networks: \(recorder.paths.suffix(3).map { $0.network ?? "nil" }), kernel: \(String(describing: try? lab.client.neighbor("192.0.2.1")))")
        #expect(source.neighborMessagesSeen - seenBefore < 3001, "the queue did not overflow (\(source.neighborMessagesSeen - seenBefore) messages read): the test proves nothing")
    }

    @Test func aNeighborQueueThatOverflowsIsReadAgainAndEndsOnTheKernelsEntry() async throws {
        let lab = try GatewayLab("nbovr")
        defer { lab.remove() }
        let gate = Gate()
        var options = LinuxSourceOptions()
        options.beforeRead = { gate.pass() }
        gate.close()
        let (monitor, recorder) = try startMonitor(lab.client, options: options)
        defer { monitor.cancel() }
        await recorder.expect("satisfied [c0:wiredEthernet] gw 192.0.2.1 v4")
        let source = try #require(monitor.storage.source as? LinuxPathSource)
        let seenBefore = source.neighborMessagesSeen
        // The reader is stuck at its next turn; 3,000 changes of the gateway's own entry
        // overflow its neighbor socket's queue, the last one a third router's address.
        let final = try changeTheGatewaysEntry3001Times(lab)
        gate.open()
        let settled = await recorder.wait { $0.network == final }
        #expect(settled != nil, "networks: \(recorder.paths.suffix(3).map { $0.network ?? "nil" }), kernel: \(String(describing: try? lab.client.neighbor("192.0.2.1")))")
        #expect(source.neighborMessagesSeen - seenBefore < 3001, "the queue did not overflow (\(source.neighborMessagesSeen - seenBefore) messages read): the test proves nothing")
    }

    @Test func otherNeighborsWakeNothing() async throws {
        let lab = try GatewayLab("nbquiet")
        defer { lab.remove() }
        let turns = Atomic<Int>(0)
        var options = LinuxSourceOptions()
        options.beforeRead = { turns.add(1, ordering: .relaxed) }
        let (monitor, recorder) = try startMonitor(lab.client, options: options)
        defer { monitor.cancel() }
        try lab.client.sendTraffic()
        let known = await recorder.wait { $0.network != nil }
        #expect(known != nil)
        let source = try #require(monitor.storage.source as? LinuxPathSource)
        let seenBefore = source.neighborMessagesSeen, turnsBefore = turns.load(ordering: .relaxed)
        // 300 changes of other neighbors' entries, on the gateway's link.
        let churn = (0..<150).flatMap { number in
            ["neigh add 192.0.2.\(10 + number % 200) lladdr 02:00:00:00:01:\(String(number % 256, radix: 16)) dev c0 nud permanent",
             "neigh del 192.0.2.\(10 + number % 200) dev c0"]
        }
        // The sentinel: the gateway's own entry changes last (another router's address).
        try lab.client.batch(churn + ["neigh replace 192.0.2.1 lladdr 02:00:00:00:00:99 dev c0 nud permanent"])
        let moved = await recorder.wait { $0.network != nil && $0.network != known?.network }
        #expect(moved?.network == NetworkIdentity.identifier(linkLayerAddresses: [[2, 0, 0, 0, 0, 0x99]], key: LinuxPathSource.identityKey))
        #expect(source.neighborMessagesSeen - seenBefore == 1, "the filter let other neighbors through")
        #expect(turns.load(ordering: .relaxed) - turnsBefore <= 2, "the reader woke for other neighbors")
    }
}
