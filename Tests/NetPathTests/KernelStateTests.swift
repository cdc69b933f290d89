import Testing
@testable import NetPath

/// SPEC §2.2–2.8 on states built from message fixtures: no kernel needed.
@Suite struct KernelStateTests {
    /// An engine with a finished (empty) dump, ready for events.
    func settled() -> NetlinkEngine {
        var engine = NetlinkEngine.pure()
        var request = engine.resynchronize()
        while let current = request {
            request = engine.feed(Fixture.done(sequence: current.sequence)).first
        }
        #expect(engine.isSettled)
        return engine
    }

    func summary(_ engine: NetlinkEngine, filter: InterfaceFilter = .none) -> String {
        let path = engine.state.path(filter: filter)
        var text = path.status == .satisfied ? "satisfied" : "\(path.status.rawValue)/\(path.diagnosis!.rawValue)"
        text += " [" + path.availableInterfaces.map(\.name).joined(separator: ",") + "]"
        if !path.gateways.isEmpty { text += " gw " + path.gateways.joined(separator: ",") }
        return text
    }

    @Test func eachDiagnosisInOrder() {
        var engine = settled()
        engine.feed(Fixture.link(index: 1, hardware: 772, flags: upFlags | 0x8, name: "lo", operstate: 0))
        engine.feed(Fixture.address(index: 1, "127.0.0.1", prefix: 8, scope: 254))
        #expect(summary(engine) == "unsatisfied/noInterface []")
        engine.feed(Fixture.link(index: 2, flags: 0x1, name: "eth0", operstate: 2))
        #expect(summary(engine) == "unsatisfied/noCarrier []")
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0", operstate: 6))
        #expect(summary(engine) == "unsatisfied/noAddress [eth0]")
        engine.feed(Fixture.address(index: 2, "192.0.2.2"))
        #expect(summary(engine) == "unsatisfied/noDefaultRoute [eth0]")
        engine.feed(Fixture.route(metric: 100, oif: 2, gateway: "192.0.2.1"))
        #expect(summary(engine) == "satisfied [eth0] gw 192.0.2.1")
        let path = engine.state.path()
        #expect(path.supportsIPv4 && !path.supportsIPv6 && path.unsatisfiedReason == nil && path.diagnosis == nil)
    }

    @Test func unusableAddressesDoNotCount() {
        var engine = settled()
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.address(index: 2, "fe80::1", prefix: 64, scope: 253))
        engine.feed(Fixture.address(index: 2, "2001:db8::2", prefix: 64, flags: 0x40))  // tentative
        engine.feed(Fixture.address(index: 2, "2001:db8::3", prefix: 64, flags: 0x08))  // DAD failed
        engine.feed(Fixture.address(index: 2, "10.0.0.2", prefix: 8, scope: 253))  // scope link
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1"))
        #expect(summary(engine) == "unsatisfied/noAddress [eth0]")
        engine.feed(Fixture.address(index: 2, "2001:db8::2", prefix: 64, flags: 0))  // DAD done
        #expect(summary(engine) == "satisfied [eth0] gw fe80::1")
        #expect(engine.state.path().supportsIPv6 && !engine.state.path().supportsIPv4)
    }

    @Test func carrierRules() {
        var engine = settled()
        engine.feed(Fixture.address(index: 5, "10.8.0.2"))
        engine.feed(Fixture.route(oif: 5))
        // A tun device: operstate UNKNOWN counts only with IFF_LOWER_UP.
        engine.feed(Fixture.link(index: 5, hardware: 0xFFFE, flags: 0x1, name: "tun0", operstate: 0, kind: "tun"))
        #expect(summary(engine) == "unsatisfied/noCarrier []")
        engine.feed(Fixture.link(index: 5, hardware: 0xFFFE, flags: upFlags, name: "tun0", operstate: 0, kind: "tun"))
        #expect(summary(engine) == "satisfied [tun0]")
        #expect(engine.state.path().availableInterfaces.first?.type == .other)
        // DORMANT: requiresConnection.
        engine.feed(Fixture.link(index: 5, hardware: 0xFFFE, flags: upFlags, name: "tun0", operstate: 5, kind: "tun"))
        #expect(summary(engine) == "requiresConnection/noCarrier []")
        #expect(engine.state.path().unsatisfiedReason == .notAvailable)
    }

    @Test func routeRules() {
        var engine = settled()
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.address(index: 2, "10.0.0.2"))
        for type: UInt8 in [6, 7, 8, 9] {  // blackhole, unreachable, prohibit, throw
            engine.feed(Fixture.route(routeType: type, metric: UInt32(type)))
        }
        engine.feed(Fixture.route(table: 255, oif: 2, gateway: "10.0.0.1"))  // table local
        engine.feed(Fixture.route(destinationLength: 8, oif: 2, gateway: "10.0.0.1"))  // not a default
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1, oif: 2, gateway: "fe80::1"))  // no IPv6 address
        #expect(summary(engine) == "unsatisfied/noDefaultRoute [eth0]")
        engine.feed(Fixture.route(table: 100, metric: 20, oif: 2, gateway: "10.0.0.1"))
        #expect(summary(engine) == "satisfied [eth0] gw 10.0.0.1")
    }

    @Test func orderByMetricThenIndexAndReplace() {
        var engine = settled()
        for index: Int32 in [2, 3, 4] {
            engine.feed(Fixture.link(index: index, flags: upFlags, name: "eth\(index)"))
            engine.feed(Fixture.address(index: index, "10.0.\(index).2"))
        }
        engine.feed(Fixture.route(metric: 300, oif: 2, gateway: "10.0.2.1"))
        engine.feed(Fixture.route(metric: 100, oif: 3, gateway: "10.0.3.1"))
        #expect(summary(engine) == "satisfied [eth3,eth2,eth4] gw 10.0.3.1,10.0.2.1")
        // NLM_F_REPLACE: the metric-100 route now goes through eth4; no DELROUTE comes.
        engine.feed(Fixture.route(metric: 100, oif: 4, gateway: "10.0.4.1", messageFlags: NetlinkParser.flagReplace))
        #expect(summary(engine) == "satisfied [eth4,eth2,eth3] gw 10.0.4.1,10.0.2.1")
        engine.feed(Fixture.route(type: NetlinkParser.deleteRoute, metric: 100, oif: 4, gateway: "10.0.4.1"))
        #expect(summary(engine) == "satisfied [eth2,eth3,eth4] gw 10.0.2.1")
    }

    @Test func multipathAndSilentRouteRemoval() {
        var engine = settled()
        for index: Int32 in [2, 3] {
            engine.feed(Fixture.link(index: index, flags: upFlags, name: "eth\(index)"))
            engine.feed(Fixture.address(index: index, "10.0.\(index).2"))
        }
        engine.feed(Fixture.route(multipath: [(2, "10.0.2.1"), (3, "10.0.3.1")]))
        #expect(summary(engine) == "satisfied [eth2,eth3] gw 10.0.2.1,10.0.3.1")
        // eth2 goes administratively down: the kernel drops its nexthop without a message.
        engine.feed(Fixture.link(index: 2, flags: 0, name: "eth2", operstate: 2))
        #expect(summary(engine) == "satisfied [eth3] gw 10.0.3.1")
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth2"))
        #expect(summary(engine) == "satisfied [eth3,eth2] gw 10.0.3.1")
        // eth3 loses its last IPv4 address: the kernel flushes its IPv4 routes silently.
        engine.feed(Fixture.address(type: NetlinkParser.deleteAddress, index: 3, "10.0.3.2"))
        engine.feed(Fixture.address(index: 3, "10.0.3.2"))
        #expect(summary(engine) == "unsatisfied/noDefaultRoute [eth2,eth3]")
    }

    @Test func filtersAndTheFilteredDiagnosis() {
        var engine = settled()
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.link(index: 3, hardware: 0xFFFE, flags: upFlags, name: "wwan0", operstate: 0))
        engine.feed(Fixture.address(index: 2, "10.0.0.2"))
        engine.feed(Fixture.address(index: 3, "100.64.0.2"))
        engine.feed(Fixture.route(metric: 100, oif: 2, gateway: "10.0.0.1"))
        #expect(summary(engine, filter: InterfaceFilter(required: .wifi, prohibited: [])) == "unsatisfied/filtered []")
        #expect(summary(engine, filter: InterfaceFilter(required: .cellular, prohibited: [])) == "unsatisfied/filtered [wwan0]")
        engine.feed(Fixture.route(metric: 700, oif: 3))
        let cellular = engine.state.path(filter: InterfaceFilter(required: nil, prohibited: [.wiredEthernet]))
        #expect(cellular.status == .satisfied && cellular.isExpensive && cellular.availableInterfaces.map(\.name) == ["wwan0"])
        #expect(!engine.state.path().isExpensive)
    }

    @Test func dnsCountsOnlyOnASatisfiedPath() {
        var engine = settled()
        engine.setHasDNSServer(true)
        #expect(!engine.state.path().supportsDNS)
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.address(index: 2, "10.0.0.2"))
        engine.feed(Fixture.route(oif: 2, gateway: "10.0.0.1"))
        #expect(engine.state.path().supportsDNS)
        engine.setHasDNSServer(false)
        #expect(!engine.state.path().supportsDNS)
    }

    @Test func deletedLinkForgetsItsAddressesAndRoutes() {
        var engine = settled()
        engine.feed(Fixture.link(index: 9, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.address(index: 9, "10.0.0.2"))
        engine.feed(Fixture.route(oif: 9, gateway: "10.0.0.1"))
        engine.feed(Fixture.link(type: NetlinkParser.deleteLink, index: 9, flags: 0, name: "eth0"))
        // Index 9 reused by a new link: nothing of the old one remains.
        engine.feed(Fixture.link(index: 9, flags: upFlags, name: "usb0"))
        #expect(summary(engine) == "unsatisfied/noAddress [usb0]")
        #expect(engine.state.defaultRoutes.isEmpty)
    }

    @Test func bridgePortNewsIsNotALinkChange() {
        var engine = settled()
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.link(type: NetlinkParser.deleteLink, family: 7, index: 2, flags: upFlags, name: "eth0"))
        #expect(summary(engine) == "unsatisfied/noAddress [eth0]")
    }
}

@Suite struct NetlinkEngineTests {
    @Test func dumpsLinksThenAddressesThenRoutes() {
        var engine = NetlinkEngine.pure()
        let first = engine.resynchronize()
        #expect(first?.dump == .links && !engine.isSettled)
        let second = engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0", messageFlags: 2, sequence: first!.sequence)
            + Fixture.done(sequence: first!.sequence))
        #expect(second.map(\.dump) == [.addresses])
        // An event (sequence 0) in the middle of a dump is applied too.
        let third = engine.feed(Fixture.address(index: 2, "10.0.0.2") + Fixture.done(sequence: second[0].sequence))
        #expect(third.map(\.dump) == [.routes])
        #expect(engine.feed(Fixture.route(oif: 2, gateway: "10.0.0.1", sequence: third[0].sequence) + Fixture.done(sequence: third[0].sequence)).isEmpty)
        #expect(engine.isSettled && engine.state.path().status == .satisfied && engine.resyncCount == 0)
        // A stale DONE (another sequence) changes nothing.
        #expect(engine.feed(Fixture.done(sequence: 999)).isEmpty && engine.isSettled)
    }

    @Test func interruptedDumpStartsOverFromAnEmptyState() {
        var engine = NetlinkEngine.pure()
        let first = engine.resynchronize()!
        let interrupted = Fixture.link(index: 2, flags: upFlags, name: "eth0", messageFlags: 2 | NetlinkParser.flagDumpInterrupted, sequence: first.sequence)
        let next = engine.feed(interrupted + Fixture.done(sequence: first.sequence))
        #expect(next.map(\.dump) == [.links] && next[0].sequence != first.sequence)
        #expect(engine.state.links.isEmpty && engine.resyncCount == 1)
    }

    @Test func overrunDuringADumpRestartsWhenItEnds() {
        var engine = NetlinkEngine.pure()
        let first = engine.resynchronize()!
        // ENOBUFS while the kernel is still dumping: one dump at a time, so wait for DONE.
        #expect(engine.resynchronize() == nil)
        let next = engine.feed(Fixture.done(sequence: first.sequence))
        #expect(next.map(\.dump) == [.links])
        #expect(!engine.isSettled)
    }

    @Test func failedDumpIsRetriedAndAcksAreIgnored() {
        var engine = NetlinkEngine.pure()
        let first = engine.resynchronize()!
        #expect(engine.feed(Fixture.error(0, sequence: first.sequence)).isEmpty)
        let retry = engine.feed(Fixture.error(-16, sequence: first.sequence))  // EBUSY
        #expect(retry.map(\.dump) == [.links])
    }

    @Test func requestsEncodeAsDumpHeaders() {
        let bytes = NetlinkEngine.encode(.init(dump: .routes, sequence: 7))
        #expect(bytes.count == 28)
        #expect(Array(bytes[0..<4]) == Fixture.u32(28) && Array(bytes[4..<6]) == Fixture.u16(26))
        #expect(Array(bytes[6..<8]) == Fixture.u16(0x301) && Array(bytes[8..<12]) == Fixture.u32(7))
    }
}
